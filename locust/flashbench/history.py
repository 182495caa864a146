"""The fault suite's checker: judges a run's history, meaning what every client was told and what the orders
database, the stock database and Redis hold afterwards. It is a pure function with no I/O: flashbench/faults gathers
the facts, `check` weighs them, and tests/test_history.py feeds it histories with each violation.

What must hold (docs/reliability.md, issue 15):
- **not oversold**: per generation, Σ units committed ≤ that generation's baseline. Each generation is judged
  against its own baseline: units left over in one do not excuse an oversell in another.
- **nothing lost**: a 200 names an order that was committed and then applied in the stock database.
- **the answers tell the truth**: an order refused with any answer other than a 200 was not committed, except
  for the answers that say they may have been (`MAYBE_COMMITTED`).
- **nothing applied twice**: the stock database applied no more deductions, and took no more units, than its
  generation's orders hold.
- **the per-user limit holds**: per generation, no user's committed units exceed the limit.

Reported, not failing by themselves: **stranded** units (the Redis counter below baseline − Σ committed of the
current generation, less the units unused purchase tokens hold until they expire: stock that can no longer be
sold until someone repairs the counter), **surplus** units
(the counter above it; the reconciliation fails on that), and committed orders that no 200 named (the client
saw a transport error or an in-doubt 503).
"""
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field

# Problem codes whose order may or may not have been committed. ORDER_OUTCOME_UNKNOWN carries the code of an
# order whose commit was in doubt; IDEMPOTENCY_IN_PROGRESS names the first order sent with the same key;
# DATABASE_UNAVAILABLE is counted too, as engines before ORDER_OUTCOME_UNKNOWN answered an order in doubt with it.
MAYBE_COMMITTED = frozenset({"ORDER_OUTCOME_UNKNOWN", "DATABASE_UNAVAILABLE", "IDEMPOTENCY_IN_PROGRESS"})


@dataclass(frozen=True)
class Request:
    """One order request as the client saw it. Times are the client's (any clock, as long as it is one)."""
    sent_at: float
    answered_at: float
    status: int  # HTTP status; -1 when no answer came (connection refused or closed, timeout)
    code: str | None = None  # the problem's code, or the name of the transport error
    order_code: str | None = None  # from a 200, or from a problem that names one
    units: int = 1
    user_id: str = ""
    idempotency_key: str | None = None


@dataclass(frozen=True)
class Order:
    """A committed order (orders.purchase_order)."""
    generation: int
    user_id: str
    units: int


@dataclass(frozen=True)
class Generation:
    """What a reset set: the stock of one generation and its per-user limit (None: no limit)."""
    baseline: int
    per_user_limit: int | None = None


@dataclass(frozen=True)
class StockLevel:
    """The stock database's row of the item. It keeps only the generation it last saw reset."""
    generation: int
    baseline: int
    quantity: int  # units left
    events_applied: int  # deductions applied since that reset


@dataclass(frozen=True)
class History:
    requests: Sequence[Request]
    orders: Mapping[str, Order]  # order code → committed order, of every generation of the item
    applied: Set[str]  # order codes whose deduction the stock database applied
    generations: Mapping[int, Generation]  # every generation the run set, with its baseline and limit
    current_generation: int
    redis_counter: int | None  # the item's counter after the run; None when Redis has none
    stock_level: StockLevel | None  # None when the stock database has no row for the item
    token_held: int = 0  # units held by purchase tokens not yet redeemed, which come back when they expire


@dataclass
class Verdict:
    oversold: int = 0  # units, summed over generations
    lost: int = 0  # orders answered 200 that were not committed, or not applied
    applied_twice: int = 0  # deductions applied beyond the orders, plus units taken beyond them
    limit_exceeded: int = 0  # (generation, user) pairs over the per-user limit
    refused_committed: int = 0  # orders refused with a definite non-200 that were committed anyway
    stranded: int | None = None  # units Redis can no longer sell; None without a counter
    surplus: int | None = None  # units Redis could sell beyond the baseline; None without a counter
    committed_unanswered: int = 0  # committed orders that no 200 named (for information)
    findings: list[str] = field(default_factory=list)  # what each figure is made of, for people

    @property
    def passed(self) -> bool:
        return (self.oversold == 0 and self.lost == 0 and self.applied_twice == 0 and self.limit_exceeded == 0
                and self.refused_committed == 0)


def check(history: History) -> Verdict:
    verdict = Verdict()
    _judge_answers(history, verdict)
    _judge_generations(history, verdict)
    _judge_limits(history, verdict)
    _judge_stock_database(history, verdict)
    _judge_counter(history, verdict)
    return verdict


def _judge_answers(h: History, v: Verdict) -> None:
    """Every 200 names a committed, applied order; every definite refusal names none that was committed."""
    lost: dict[str, str] = {}  # order code → why; an order answered 200 twice (same key) is lost once
    nameless = 0
    refused: list[str] = []
    for r in h.requests:
        if r.status == 200:
            if r.order_code is None:
                nameless += 1
            elif r.order_code not in h.orders:
                lost[r.order_code] = "not committed"
            elif r.order_code not in h.applied:
                lost[r.order_code] = "committed but not applied in the stock database"
        elif r.order_code in h.orders and r.code not in MAYBE_COMMITTED:
            refused.append(f"{r.status} {r.code}: order {r.order_code}")
    v.lost = len(lost) + nameless
    v.findings += [f"lost: order {code} answered 200, {why}" for code, why in sorted(lost.items())]
    if nameless:
        v.findings.append(f"lost: {nameless} answers 200 named no order")
    v.refused_committed = len(refused)
    v.findings += [f"refused but committed: {line}" for line in refused]
    answered = {r.order_code for r in h.requests if r.status == 200}
    v.committed_unanswered = sum(1 for code in h.orders if code not in answered)


def _units_by_generation(h: History) -> Counter:
    units: Counter = Counter()
    for order in h.orders.values():
        units[order.generation] += order.units
    return units


def _judge_generations(h: History, v: Verdict) -> None:
    for generation, units in sorted(_units_by_generation(h).items()):
        known = h.generations.get(generation)
        # a generation no reset of this run set has no stock: everything sold in it is oversold
        baseline = known.baseline if known else 0
        if known is None:
            v.findings.append(f"generation {generation}: orders of a generation no reset of this run set")
        if units > baseline:
            v.oversold += units - baseline
            v.findings.append(f"generation {generation}: oversold by {units - baseline} units "
                              f"({units} committed of a baseline of {baseline})")


def _judge_limits(h: History, v: Verdict) -> None:
    bought: dict[int, Counter] = defaultdict(Counter)
    for order in h.orders.values():
        bought[order.generation][order.user_id] += order.units
    for generation, users in sorted(bought.items()):
        known = h.generations.get(generation)
        limit = known.per_user_limit if known else None
        if limit is None:
            continue
        for user, units in sorted(users.items()):
            if units > limit:
                v.limit_exceeded += 1
                v.findings.append(f"generation {generation}: user {user} bought {units} units, limit {limit}")


def _judge_stock_database(h: History, v: Verdict) -> None:
    """As many deductions and units as the orders of the stock database's generation, never more.

    Fewer is not judged here: an order not applied is lost (above), and the reconciliation checks the rest."""
    level = h.stock_level
    if level is None:
        if h.orders:
            v.findings.append("the stock database has no row for the item")
        return
    if level.generation != h.current_generation:
        v.findings.append(f"the stock database is at generation {level.generation}, the orders database at "
                          f"{h.current_generation}: judged against the orders of generation {level.generation}")
    orders = [o for o in h.orders.values() if o.generation == level.generation]
    extra_events = max(0, level.events_applied - len(orders))
    extra_units = max(0, (level.baseline - level.quantity) - sum(o.units for o in orders))
    v.applied_twice = extra_events + extra_units
    if extra_events:
        v.findings.append(f"applied twice: {level.events_applied} deductions applied for {len(orders)} orders")
    if extra_units:
        v.findings.append(f"applied twice: {level.baseline - level.quantity} units taken in the stock database "
                          f"for orders of {sum(o.units for o in orders)}")


def _judge_counter(h: History, v: Verdict) -> None:
    if h.redis_counter is None:
        v.findings.append("Redis holds no counter for the item: stranded units unknown")
        return
    known = h.generations.get(h.current_generation)
    baseline = known.baseline if known else 0
    expected = baseline - _units_by_generation(h)[h.current_generation]
    if h.token_held:
        v.findings.append(f"{h.token_held} units held by unused purchase tokens: they come back when the tokens expire")
    v.stranded = max(0, expected - h.token_held - h.redis_counter)
    v.surplus = max(0, h.redis_counter + h.token_held - expected)
    if v.stranded:
        v.findings.append(f"{v.stranded} units stranded: Redis holds {h.redis_counter}, baseline − Σ committed "
                          f"is {expected}")
    if v.surplus:
        v.findings.append(f"{v.surplus} units of surplus: Redis holds {h.redis_counter}, baseline − Σ committed "
                          f"is {expected}")
