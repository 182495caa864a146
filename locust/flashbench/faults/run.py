"""A scenario's run while it goes, what a scenario is, and the timing the faults share: moments of the load,
the sell-out it would reach without a fault, waiting without stopping the load."""
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import gevent

from flashbench import history
from flashbench.faults.load import Load

@dataclass
class Run:
    """A scenario's run while it goes: the fault records here what it did and when."""
    name: str
    item: str
    load: Load
    stock_share: float  # of the units asked, for a reset's new stock
    per_user_limit: int | None
    generations: dict[int, history.Generation] = field(default_factory=dict)
    description: str = ""
    fault_start: float | None = None
    fault_end: float | None = None
    reloads: Counter = field(default_factory=Counter)
    redis_restored: dict = field(default_factory=dict)
    gate: str = "redis"
    label: str | None = None  # a side item of the sale (cluster topology): what it adds to the main item
    sides: list["Run"] = field(default_factory=list)  # the sale's other items, sold at the same time
    figures: dict = field(default_factory=dict)  # what a cluster fault measured (gaps, promotions, leaders)
    prepared: dict = field(default_factory=dict)  # what Scenario.prepare looked up for the fault

    def all_loads(self) -> list[Load]:
        return [self.load, *(side.load for side in self.sides)]

    def record_generation(self, view: dict) -> int:
        """Notes the generation a reset answered with, to judge its orders against its own baseline."""
        generation = int(view["generation"])
        self.generations[generation] = history.Generation(int(view["baseline"]), view.get("perUserLimit"))
        return generation


def at(load: Load, offset_s: float) -> None:
    """Sleeps (cooperatively) until `offset_s` after the load started."""
    gevent.sleep(max(0.0, load.started + offset_s - time.monotonic()))


def around_sell_out(load: Load, lead_s: float = 0.0) -> float:
    """When a fault should start for the stock to run out while it lasts: `lead_s` before the load would sell
    out if every order were served, but within the middle 80 % of the run."""
    return min(max(0.1 * load.duration_s, load.sell_out_s - lead_s), 0.9 * load.duration_s)



def wait_cooperatively(predicate, timeout_s: float, interval_s: float = 0.05) -> bool:
    """Polls `predicate` without stopping the load; whether it held before the deadline."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        gevent.sleep(interval_s)
    return True



@dataclass(frozen=True)
class Scenario:
    inject: Callable[[Run], None]
    per_user_limit: int | None = None
    setup: Callable[[], None] | None = None  # before the item is set up
    teardown: Callable[[], None] | None = None  # after the run is judged, even when it failed
    # a kill -9 of order-api between a take and its commit leaves units taken for no order: the reconciliation
    # finds them and --repair-redis gives them back, as designed
    repair_redis: bool = False
    gate: str = "redis"  # "queue": real users go through the waiting room (QueueLoad)
    rate_share: float = 1.0  # of --rate (and of the stock), for loads heavier per user than one order
    # after the items are set up and before the load starts: what the fault needs to know and is slow to learn
    # (a Kafka tool's JVM on a loaded box), looked up while it costs the sale nothing
    prepare: Callable[[Run], None] | None = None
    duration_factor: float = 1.0  # of --duration, for a fault that needs time before, during and after it
    stock_share: float | None = None  # instead of --stock-share (and --stock): when the item must sell past the fault
