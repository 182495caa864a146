package io.flashstock.order;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionStatus;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real transaction manager, which can hold the next transaction at its begin or its commit: a test forces a
 * race by holding an order between its take and its commit, or keeps orders in flight.
 */
public class HoldingTransactions extends JdbcTransactionManager {

    /** Installs it as the application's transaction manager: {@code @Import(HoldingTransactions.Installed.class)}. */
    @TestConfiguration
    public static class Installed {
        @Bean
        HoldingTransactions transactionManager(DataSource dataSource) {
            return new HoldingTransactions(dataSource);
        }
    }

    public enum At { BEGIN, COMMIT }

    private static final Duration HOLD_AT_MOST = Duration.ofSeconds(20);

    private At armed;
    private CountDownLatch held = new CountDownLatch(1);
    private CountDownLatch released = new CountDownLatch(1);

    public HoldingTransactions(DataSource dataSource) {
        super(dataSource);
    }

    /** The next transaction to reach {@code at} waits there until {@link #release}. */
    public synchronized void holdNext(At at) {
        armed = at;
        held = new CountDownLatch(1);
        released = new CountDownLatch(1);
    }

    public void awaitHeld() throws InterruptedException {
        assertThat(held.await(HOLD_AT_MOST.toSeconds(), TimeUnit.SECONDS)).as("a transaction reached the hold").isTrue();
    }

    public void release() {
        released.countDown();
    }

    @Override
    protected void doBegin(Object transaction, TransactionDefinition definition) {
        holdIfArmed(At.BEGIN);
        super.doBegin(transaction, definition);
    }

    @Override
    protected void doCommit(DefaultTransactionStatus status) {
        holdIfArmed(At.COMMIT);
        super.doCommit(status);
    }

    private void holdIfArmed(At at) {
        CountDownLatch release;
        synchronized (this) {
            if (armed != at) {
                return;
            }
            armed = null;
            release = released;
            held.countDown();
        }
        try {
            release.await(HOLD_AT_MOST.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
