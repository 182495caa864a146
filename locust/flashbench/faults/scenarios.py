"""The fault suite's scenarios: kills and stops of the stack's parts, a storm of reloads, order-api killed with
orders in doubt, a reset during the load; each injects its fault into a run (flashbench/faults/run.py) timed
around the moment the item would sell out. The Redis faults and the gates' are in their own modules."""
import signal
import time

import gevent

from flashbench import admin, stack
from flashbench.faults.gates import (QUEUE_SCENARIO_ENV, TOKEN_SCENARIO_ENV, entry_flood, hoards_expire_in_crowd,
                                     order_api_with)
from flashbench.faults.load import Load
from flashbench.faults.probes import blocking, in_doubt_left, redis_counter, signal_component
from flashbench.faults.redis_faults import redis_aof_kill, redis_restart, redis_with_aof, redis_without_aof
from flashbench.faults.run import Run, Scenario, around_sell_out, at, wait_cooperatively

PER_USER_LIMIT = 3
RELOAD_EVERY_S = 0.5
IN_DOUBT_TRIES = 20  # freezes of MariaDB, each until it shows whether it caught a commit (or IN_DOUBT_WAIT_S)
IN_DOUBT_WAIT_S = 5.0  # a commit the freeze caught is answered ORDER_OUTCOME_UNKNOWN within about 3 s
OUTAGE_GRACE_S = 0.5  # after the outage's first answer, for the answers that left order-api with it to come in
SETTLED_WITHIN_S = 120.0  # order-api's restart (its AOT cache, or a JIT start), then abandoned-after (10 s)
# how long a reset is retried while order-api cannot do it yet (Redis restarted, a rebuild, order-api restarting)
RESET_RETRY_S = 30.0


def kill_and_restart(component: str, times: int):
    """kill -9 and start again, `times` times. Several kills are spread from half the sell-out time to one and a
    half times it, so that the stock runs out between the first and the last; a single kill is at the sell-out."""
    def inject(run: Run) -> None:
        load = run.load
        spread = [1.0] if times == 1 else [0.5 + k / (times - 1) for k in range(times)]
        for share in spread:
            at(load, min(max(0.1 * load.duration_s, share * load.sell_out_s), 0.9 * load.duration_s))
            run.fault_start = run.fault_start or time.monotonic()
            blocking(stack.control, "kill", component)
            blocking(stack.control, "start", component)
        run.fault_end = time.monotonic()
        run.description = f"kill -9 of {component}, restarted, {times}×"
    return inject


def stop_for(component: str, seconds: float):
    """Stopped for `seconds`, centred on the sell-out."""
    def inject(run: Run) -> None:
        at(run.load, around_sell_out(run.load, seconds / 2))
        run.fault_start = time.monotonic()
        blocking(stack.control, "stop", component)
        gevent.sleep(seconds)
        blocking(stack.control, "start", component)
        run.fault_end = time.monotonic()
        run.description = f"{component} stopped for {seconds:.0f} s"
    return inject



def reload_storm(run: Run) -> None:
    """A reload every RELOAD_EVERY_S, each in its own greenlet whether or not the previous one answered, over
    the 40 % of the run around the sell-out. A reload that finds another one running answers 503
    STOCK_RELOADING; both answers are counted."""
    load = run.load
    start = max(0.1 * load.duration_s, load.sell_out_s - 0.2 * load.duration_s)
    end = min(0.9 * load.duration_s, load.sell_out_s + 0.2 * load.duration_s)
    at(load, start)
    run.fault_start = time.monotonic()

    def reload_once() -> None:
        status, payload = admin.call("POST", f"/admin/items/{run.item}/stock/reload")
        run.reloads[admin.answer_key(status, payload)] += 1

    sent = []
    while start + len(sent) * RELOAD_EVERY_S < end:
        at(load, start + len(sent) * RELOAD_EVERY_S)
        sent.append(gevent.spawn(reload_once))
    gevent.joinall(sent)
    run.fault_end = time.monotonic()
    run.description = (f"{len(sent)} reloads, one every {RELOAD_EVERY_S:g} s from {start:.0f} s to {end:.0f} s "
                       "of the load")



def answered_in_doubt(load: Load, since: int) -> int:
    """Orders answered ORDER_OUTCOME_UNKNOWN among the answers after the first `since`."""
    return sum(r.code == "ORDER_OUTCOME_UNKNOWN" for r in load.requests[since:])


def outage_seen(load: Load, since: int) -> bool:
    """Whether an answer after the first `since` tells how a freeze of the database caught order-api's one writer:
    ORDER_OUTCOME_UNKNOWN if in its commit; DATABASE_UNAVAILABLE if before it (that batch is not written, and the
    breaker then refuses every order before it takes stock, so no commit of this freeze is left to catch)."""
    return any(r.code in ("ORDER_OUTCOME_UNKNOWN", "DATABASE_UNAVAILABLE") for r in load.requests[since:])



def api_kill_in_doubt(run: Run) -> None:
    """order-api killed with orders in doubt, and started again: the restarted one must settle them by itself.

    MariaDB is frozen (SIGSTOP) while orders are written, so that a commit it caught can neither finish nor be looked
    up: its order is answered ORDER_OUTCOME_UNKNOWN and held in doubt. A freeze that caught none (the first answer
    of the outage is DATABASE_UNAVAILABLE: the writer was before its commit) is thawed at once, and tried again once
    an order was written, up to IN_DOUBT_TRIES times from a tenth of the run, while stock is left (a sold-out order
    never reaches the database). Then the sending is held until
    every request in flight is answered, so that the kill leaves no units taken but those of the orders in doubt
    (a take between its Redis step and its commit is api-kill's drift, which --repair-redis mends), order-api is
    killed with SIGKILL, MariaDB thawed, the sending resumed (the orders due meanwhile go at once, refused while
    order-api is down), and order-api started again. The fault ends when the item has no order in doubt left; the
    reconciliation must then be exact with no repair. No order in doubt after every try: RuntimeError."""
    load, item = run.load, run.item
    at(load, 0.1 * load.duration_s)
    run.fault_start = time.monotonic()
    ends = load.started + load.duration_s
    caught = tries = held = 0
    frozen = False
    settled_s = None
    try:
        while not caught and tries < IN_DOUBT_TRIES and time.monotonic() < ends and blocking(redis_counter, item):
            tries += 1
            since = len(load.requests)
            blocking(signal_component, "mariadb", signal.SIGSTOP)
            frozen = True
            if wait_cooperatively(lambda: outage_seen(load, since), IN_DOUBT_WAIT_S):
                gevent.sleep(OUTAGE_GRACE_S)
            caught = answered_in_doubt(load, since)
            if not caught:
                blocking(signal_component, "mariadb", signal.SIGCONT)
                frozen = False
                thawed = len(load.requests)
                wait_cooperatively(lambda: any(r.status == 200 for r in load.requests[thawed:]), 10)
        if caught:
            load.pause()
            if not wait_cooperatively(lambda: load.in_flight == 0, 30):
                raise RuntimeError(f"{load.in_flight} requests still in flight 30 s after the sending was held")
            caught = answered_in_doubt(load, since)
            held = blocking(in_doubt_left, item)
            blocking(stack.control, "kill", "order-api")
            blocking(signal_component, "mariadb", signal.SIGCONT)
            frozen = False
            load.resume()
            blocking(stack.control, "start", "order-api")
            restarted = time.monotonic()
            if wait_cooperatively(lambda: blocking(in_doubt_left, item) == 0, SETTLED_WITHIN_S):
                settled_s = time.monotonic() - restarted
    finally:
        if frozen:
            blocking(signal_component, "mariadb", signal.SIGCONT)
        load.resume()
    run.fault_end = time.monotonic()
    if not caught:
        raise RuntimeError(f"no order went in doubt in {tries} freezes of MariaDB: order-api was not killed")
    run.description = (f"MariaDB frozen (SIGSTOP) {tries}× until {caught} orders were answered in doubt ({held} held "
                       "in Redis); order-api killed (SIGKILL) with them, MariaDB thawed, order-api restarted: "
                       + (f"none left in doubt {settled_s:.1f} s after it was up" if settled_s is not None
                          else f"still in doubt {SETTLED_WITHIN_S:.0f} s after it was up"))


def reset_during_load(run: Run) -> None:
    """A reset at the sell-out, while the last units of the first generation are being taken: its new stock is
    the same share of what the rest of the load asks for. The reset is fenced: an order of the first generation
    commits before it or not at all, and the checker judges each generation against its own baseline."""
    load = run.load
    reset_at = around_sell_out(load)
    rest = load.draws[int(reset_at * load.rate):]
    quantity = max(1, round(run.stock_share * sum(d.units for d in rest)))
    at(load, reset_at)
    run.fault_start = time.monotonic()
    generation = run.record_generation(admin.reset_stock(run.item, quantity, run.per_user_limit, retry_s=RESET_RETRY_S))
    run.fault_end = time.monotonic()
    run.description = f"stock reset to {quantity} at {reset_at:.0f} s of the load (generation {generation})"



SCENARIOS = {
    "relay-kill": Scenario(kill_and_restart("outbox-relay", 3)),
    "consumer-kill": Scenario(kill_and_restart("stock-consumer", 3)),
    "api-kill": Scenario(kill_and_restart("order-api", 1), repair_redis=True),
    "api-kill-in-doubt": Scenario(api_kill_in_doubt),
    "kafka-stop": Scenario(stop_for("kafka", 15)),
    "db-stop": Scenario(stop_for("mariadb", 10)),
    "redis-restart": Scenario(redis_restart),
    "reload-storm": Scenario(reload_storm),
    "redis-aof-kill": Scenario(redis_aof_kill, setup=redis_with_aof, teardown=redis_without_aof),
    "reset-during-load": Scenario(reset_during_load),
    "per-user-limit": Scenario(redis_restart, per_user_limit=PER_USER_LIMIT),
    "entry-flood": Scenario(entry_flood, gate="queue", rate_share=0.1, setup=order_api_with(QUEUE_SCENARIO_ENV),
                            teardown=order_api_with({})),
    "units-back-in-crowd": Scenario(hoards_expire_in_crowd, gate="token", rate_share=0.5,
                                    setup=order_api_with(TOKEN_SCENARIO_ENV), teardown=order_api_with({})),
}


# what the single topology's Redis (one process, its files in REDIS_DIR) makes possible; the cluster topology has
# its own Redis faults (flashbench/cluster)
SINGLE_ONLY = frozenset({"redis-restart", "redis-aof-kill", "per-user-limit", "entry-flood", "units-back-in-crowd"})
