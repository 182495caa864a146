package io.flashstock.order.stock;

import io.flashstock.order.stock.StockItems.OrderTotals;
import io.flashstock.order.stock.StockItems.StockItem;
import io.flashstock.order.refusal.RefusedException;
import io.flashstock.order.refusal.Refusal;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.SimpleTransactionStatus;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.flashstock.order.UseCaseAssertions.assertProblem;
import static io.flashstock.order.UseCaseAssertions.countersMoved;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.argThat;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/**
 * The rebuild of an item's Redis counter from the database, with both faked: the items, the counters and the
 * transactions are mocks; the meters and the lookup of the token gate's holds are real, and the executor keeps a heal
 * until the test runs it. Each case pins the steps the fence rests on (the raise of the load epoch committed before
 * the orders are counted, the count loaded under the raised epoch), what a refusal or a failed step leaves, and the
 * {@code flashstock.stock.reloads} counter it moves (or that it moves none).
 */
class StockReloadTest {

    private static final String ITEM = "sneaker";
    private static final String LOCK = "reload-lock-token";
    private static final long GENERATION = 3;
    private static final long EPOCH = 7;
    private static final long RAISED = 8;
    private static final StockSettings SETTINGS = settings(Duration.ofSeconds(1));

    private final StockItems items = mock(StockItems.class);
    private final StockCounters counters = mock(StockCounters.class);
    private final PlatformTransactionManager transactions = mock(PlatformTransactionManager.class);
    private final TransactionStatus transaction = new SimpleTransactionStatus();
    private final HeldUnits holds = mock(HeldUnits.class);
    private final StaticListableBeanFactory beans = new StaticListableBeanFactory();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<Runnable> background = new ArrayList<>();
    private boolean executorFull;
    private final StockReload reload = new StockReload(items, counters, transactions, SETTINGS, this::execute,
            meters, beans.getBeanProvider(HeldUnits.class));

    StockReloadTest() {
        when(transactions.getTransaction(any())).thenReturn(transaction);
        when(counters.lockReload(ITEM, SETTINGS.reload().lockTtl())).thenReturn(Optional.of(LOCK));
        when(counters.load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList())).thenReturn(true);
        when(items.totals(ITEM, GENERATION)).thenReturn(new OrderTotals(40, 55, Instant.EPOCH));
    }

    @Test
    void anOperatorsReloadCountsTheOrdersOnlyOnceTheRaisedEpochCommittedAndLoadsUnderIt() {
        fenced(Gate.REDIS, null);

        reload.reload(ITEM);

        var steps = inOrder(counters, transactions, items);
        steps.verify(counters).lockReload(ITEM, Duration.ofSeconds(15));
        steps.verify(transactions).getTransaction(argThat(fence -> fence.getTimeout() == 1));
        steps.verify(items).fence(ITEM);
        steps.verify(transactions).commit(transaction);
        steps.verify(counters).markKeysLost(ITEM, Duration.ofHours(24));
        steps.verify(items).totals(ITEM, GENERATION);
        steps.verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.REDIS, List.of());
        steps.verify(counters).unlockReload(ITEM, LOCK);
        verify(transactions, never()).rollback(any());
        verify(counters, never()).loadBought(anyString(), anyLong(), anyMap(), any());
        verifyNoInteractions(holds);
        assertThat(reloadsCounted()).containsExactly(Map.entry("operator", 1.0));
    }

    @Test
    void theFenceWaitsAtMostItsTimeoutInWholeSecondsAndAtLeastOne() {
        assertThat(StockReload.fencing(transactions, settings(Duration.ofSeconds(3))).getTimeout()).isEqualTo(3);
        assertThat(StockReload.fencing(transactions, settings(Duration.ofMillis(2_500))).getTimeout()).isEqualTo(2);
        assertThat(StockReload.fencing(transactions, settings(Duration.ofMillis(500))).getTimeout()).isEqualTo(1);
    }

    @Test
    void whatEachUserBoughtIsLoadedUnderTheRaisedEpochBeforeTheCounterThatSellsToThem() {
        fenced(Gate.REDIS, 2);
        when(items.boughtPerUser(ITEM, GENERATION)).thenReturn(Map.of("alice", 2L, "bob", 1L));

        reload.reload(ITEM);

        var steps = inOrder(transactions, counters);
        steps.verify(transactions).commit(transaction);
        steps.verify(counters).loadBought(ITEM, RAISED, Map.of("alice", 2L, "bob", 1L), Duration.ofDays(7));
        steps.verify(counters).load(ITEM, 45, GENERATION, 2, RAISED, Gate.REDIS, List.of());
    }

    @Test
    void aTokenItemsLoadNamesTheHoldsTheDatabaseHasAsOrdersAskedAfterTheFence() {
        beans.addBean("tokenHolds", holds);
        fenced(Gate.TOKEN, null);
        when(holds.committedAmongHolds(ITEM)).thenReturn(List.of("order-1", "order-2"));

        reload.reload(ITEM);

        var steps = inOrder(transactions, holds, counters);
        steps.verify(transactions).commit(transaction);
        steps.verify(holds).committedAmongHolds(ITEM);
        steps.verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.TOKEN, List.of("order-1", "order-2"));
    }

    @Test
    void withoutTheTokenGatesBeansATokenItemIsLoadedWithNoHolds() {
        fenced(Gate.TOKEN, null);

        reload.reload(ITEM);

        verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.TOKEN, List.of());
    }

    @Test
    void anOversoldItemIsLoadedBelowZeroSoThatItSellsNothing() {
        fenced(Gate.REDIS, null);
        when(items.totals(ITEM, GENERATION)).thenReturn(new OrderTotals(90, 103, Instant.EPOCH));

        reload.reload(ITEM);

        verify(counters).load(ITEM, -3, GENERATION, null, RAISED, Gate.REDIS, List.of());
    }

    @Test
    void anItemSoldByItsRowLockLosesItsRedisCounterAndIsNotCounted() {
        fenced(Gate.DB_LOCK, null);

        reload.reload(ITEM);

        var steps = inOrder(transactions, counters);
        steps.verify(transactions).commit(transaction);
        steps.verify(counters).unload(ITEM, GENERATION, RAISED);
        steps.verify(counters).unlockReload(ITEM, LOCK);
        verify(counters, never()).markKeysLost(anyString(), any());
        verify(items, never()).totals(anyString(), anyLong());
        verify(counters, never()).load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList());
        assertThat(reloadsCounted()).containsExactly(Map.entry("operator", 1.0));
    }

    @Test
    void aLaterLoadAlreadyInRedisIsLeftInPlace() {
        fenced(Gate.REDIS, null);
        when(counters.load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList())).thenReturn(false);

        reload.reload(ITEM);

        verify(counters).unlockReload(ITEM, LOCK);
    }

    @Test
    void aReloadWhileAnotherOrderApiRebuildsTheItemIsRefusedAndTouchesNothing() {
        when(counters.lockReload(ITEM, SETTINGS.reload().lockTtl())).thenReturn(Optional.empty());

        assertProblem(() -> reload.reload(ITEM), Refusal.STOCK_RELOADING);

        verifyNoInteractions(items, transactions);
        verify(counters, never()).unlockReload(anyString(), anyString());
        assertThat(reloadsCounted()).isEmpty();
    }

    @Test
    void anItemWithNoBaselineIsUnknownAndItsLockReleased() {
        when(items.fence(ITEM)).thenReturn(Optional.empty());

        assertProblem(() -> reload.reload(ITEM), Refusal.UNKNOWN_ITEM);

        verify(counters, never()).markKeysLost(anyString(), any());
        verify(counters, never()).load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList());
        verify(counters, never()).unload(anyString(), anyLong(), anyLong());
        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
    }

    @Test
    void aFenceThatTimesOutRaisesNothingAndLeavesTheOldCounter() {
        var timeout = new QueryTimeoutException("lock wait timeout");
        when(items.fence(ITEM)).thenThrow(timeout);

        assertThatThrownBy(() -> reload.reload(ITEM)).isSameAs(timeout);

        verify(transactions).rollback(transaction);
        verify(transactions, never()).commit(any());
        verify(counters, never()).markKeysLost(anyString(), any());
        verify(items, never()).totals(anyString(), anyLong());
        verify(counters, never()).load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList());
        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
    }

    @Test
    void aCountThatFailsAfterTheFenceLeavesTheCounterBehindTheRaisedEpochForTheNextHeal() {
        fenced(Gate.REDIS, null);
        var down = new DataAccessResourceFailureException("database down");
        when(items.totals(ITEM, GENERATION)).thenThrow(down);

        assertThatThrownBy(() -> reload.reload(ITEM)).isSameAs(down);

        verify(transactions).commit(transaction);
        verify(counters, never()).load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList());
        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();

        // the gate finds the old counter's epoch behind the database's, and its heal finishes the rebuild
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.REDIS, null, RAISED)));
        when(counters.trustedLoad(ITEM)).thenReturn(OptionalLong.of(EPOCH));
        doReturn(new OrderTotals(40, 55, Instant.EPOCH)).when(items).totals(ITEM, GENERATION);
        reload.heal(ITEM);
        runBackground();
        verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.REDIS, List.of());
    }

    @Test
    void aLoadRedisDoesNotAnswerIsSaidAndTheLockReleased() {
        fenced(Gate.REDIS, null);
        when(counters.load(anyString(), anyLong(), anyLong(), any(), anyLong(), any(), anyList()))
                .thenThrow(new RefusedException(Refusal.REDIS_UNAVAILABLE, "Redis did not answer"));

        assertProblem(() -> reload.reload(ITEM), Refusal.REDIS_UNAVAILABLE);

        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
    }

    @Test
    void aHealReturnsAtOnceAndRebuildsACounterBehindTheDatabasesEpochInTheBackground() {
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.REDIS, null, EPOCH)));
        when(counters.trustedLoad(ITEM)).thenReturn(OptionalLong.of(EPOCH - 1));
        fenced(Gate.REDIS, null);

        reload.heal(ITEM);
        verifyNoInteractions(counters, items, transactions);
        runBackground();

        var steps = inOrder(counters, items);
        steps.verify(counters).lockReload(ITEM, Duration.ofSeconds(15));
        steps.verify(items).find(ITEM);
        steps.verify(items).fence(ITEM);
        steps.verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.REDIS, List.of());
        steps.verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).containsExactly(Map.entry("engine", 1.0));
    }

    @Test
    void aCounterRedisLostOrLoadedInAnEarlierLifeIsHealed() {
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.REDIS, null, EPOCH)));
        when(counters.trustedLoad(ITEM)).thenReturn(OptionalLong.empty());
        fenced(Gate.REDIS, null);

        reload.heal(ITEM);
        runBackground();

        verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.REDIS, List.of());
    }

    @Test
    void aCounterFoundTrustedOnceTheLockIsHeldIsLeftAsItIs() {
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.REDIS, null, EPOCH)));
        when(counters.trustedLoad(ITEM)).thenReturn(OptionalLong.of(EPOCH));

        reload.heal(ITEM);
        runBackground();

        verify(items, never()).fence(anyString());
        verifyNoInteractions(transactions);
        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
    }

    @Test
    void anItemWithNoBaselineIsNotHealed() {
        when(items.find(ITEM)).thenReturn(Optional.empty());

        reload.heal(ITEM);
        runBackground();

        verifyNoInteractions(transactions);
        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
    }

    @Test
    void aCounterLeftInRedisForAnItemSoldByItsRowLockIsAlwaysRemoved() {
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.DB_LOCK, null, EPOCH)));
        when(counters.trustedLoad(ITEM)).thenReturn(OptionalLong.of(EPOCH));
        fenced(Gate.DB_LOCK, null);

        reload.heal(ITEM);
        runBackground();

        verify(counters).unload(ITEM, GENERATION, RAISED);
        assertThat(reloadsCounted()).containsExactly(Map.entry("engine", 1.0));
    }

    @Test
    void aHealWhileAnotherOrderApiRebuildsTheItemLeavesItToThem() {
        when(counters.lockReload(ITEM, SETTINGS.reload().lockTtl())).thenReturn(Optional.empty());

        reload.heal(ITEM);
        runBackground();

        verifyNoInteractions(items, transactions);
        verify(counters, never()).unlockReload(anyString(), anyString());
    }

    @Test
    void thisOrderApiHealsAnItemOnceAtATime() {
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.REDIS, null, EPOCH)));

        reload.heal(ITEM);
        reload.heal(ITEM);
        reload.heal("other-item");
        assertThat(background).hasSize(2);

        runBackground();
        reload.heal(ITEM);
        assertThat(background).as("healed again once the first heal ended").hasSize(1);
    }

    @Test
    void aHealTheExecutorRefusesIsStartedByTheNextOne() {
        executorFull = true;
        reload.heal(ITEM);
        executorFull = false;

        reload.heal(ITEM);

        assertThat(background).hasSize(1);
    }

    @Test
    void aHealThatFailsReleasesTheLockAndTheNextHealTriesAgain() {
        when(items.find(ITEM)).thenReturn(Optional.of(item(Gate.REDIS, null, EPOCH)));
        when(items.fence(ITEM)).thenThrow(new QueryTimeoutException("lock wait timeout"));

        reload.heal(ITEM);
        runBackground();

        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
        reload.heal(ITEM);
        assertThat(background).hasSize(1);
    }

    @Test
    void aRecountRebuildsTheCounterWhateverItHolds() {
        fenced(Gate.REDIS, null);

        assertThat(reload.recountNow(ITEM)).isTrue();

        verify(items, never()).find(anyString());
        verify(counters, never()).trustedLoad(anyString());
        verify(counters).load(ITEM, 45, GENERATION, null, RAISED, Gate.REDIS, List.of());
        verify(counters).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).containsExactly(Map.entry("engine", 1.0));
    }

    @Test
    void aRecountWhileAnotherRebuildsTheItemOrThatFailsSaysItDidNotRecount() {
        when(counters.lockReload(ITEM, SETTINGS.reload().lockTtl())).thenReturn(Optional.empty(), Optional.of(LOCK));
        when(items.fence(ITEM)).thenThrow(new QueryTimeoutException("lock wait timeout"));

        assertThat(reload.recountNow(ITEM)).as("another order-api holds the lock").isFalse();
        verifyNoInteractions(items);

        assertThat(reload.recountNow(ITEM)).as("the fence timed out").isFalse();
        verify(counters, times(1)).unlockReload(ITEM, LOCK);
        assertThat(reloadsCounted()).isEmpty();
    }

    private void fenced(Gate gate, Integer perUserLimit) {
        when(items.fence(ITEM)).thenReturn(Optional.of(item(gate, perUserLimit, RAISED)));
    }

    private static StockItem item(Gate gate, Integer perUserLimit, long loadEpoch) {
        return new StockItem(ITEM, GENERATION, 100, perUserLimit, gate, gate == Gate.DB_LOCK ? 60L : null, loadEpoch);
    }

    private void execute(Runnable task) {
        if (executorFull) {
            throw new TaskRejectedException("executor full");
        }
        background.add(task);
    }

    private void runBackground() {
        var tasks = List.copyOf(background);
        background.clear();
        tasks.forEach(Runnable::run);
    }

    /** The {@code flashstock.stock.reloads} counters that moved, as trigger to count. */
    private Map<String, Double> reloadsCounted() {
        return countersMoved(meters, "flashstock.stock.reloads", "trigger");
    }

    private static StockSettings settings(Duration fenceTimeout) {
        return new StockSettings(Duration.ofHours(24), Duration.ofDays(7),
                new StockSettings.Reload(fenceTimeout, Duration.ofSeconds(15)));
    }
}
