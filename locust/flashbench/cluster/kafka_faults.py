"""The brokers' faults under the sale: the leader of the sale's partition killed and restarted, two of the three
brokers down at once."""
import time

import gevent

from flashbench import stack
from flashbench.cluster import brokers
from flashbench.cluster.fault_steps import kill_now, sale_answered
from flashbench.cluster.sale_figures import answers_sent
from flashbench.cluster.whole import KAFKA_NODES
from flashbench.faults import probes
from flashbench.faults.probes import blocking
from flashbench.faults.run import Run, at

# A broker SIGKILLed and started again took 43–49 s to answer on the loaded box (run 1, 2026-11-26: 37 s before
# the JVM logged "Kafka Server started"), so the Kafka faults run three times --duration, with stock that lasts
# until ~0.95 of it, and leave room for the restart and some selling after it.
KAFKA_DURATION_FACTOR = 3.0
KAFKA_STOCK_SHARE = 0.95
KAFKA_RESTART_S = 50.0
SELLING_AFTER_S = 10.0  # of the load left after a broker's expected restart, for a kill to be made
BROKERS_DOWN_S = 30.0  # at most, and at most BROKERS_DOWN_SHARE of the load
BROKERS_DOWN_SHARE = 0.2  # 18 s of a 90 s load: longer than a send's timeouts (max.block 5 s + delivery 10 s)
BROKER_KILL_SPACING = 0.25  # of the load, between two kills of the partition's leader (the first at 0.1 of it)


def look_up_leader(run: Run) -> None:
    """Before the load (Scenario.prepare): the main item's partition and the broker leading it. Both take an admin
    call and a Kafka tool's JVM, 16 s on a loaded box: looked up during the load, the fault came after the sell-out."""
    partition = brokers.item_partition(run.item)
    run.figures = {**run.figures, "partition": partition, "leader_before_load": brokers.leader_of(partition)}


def broker_leader_kill(times: int):
    """The broker leading the main item's partition killed with SIGKILL and started again, `times` times: the first
    at 0.1 of the load, the next BROKER_KILL_SPACING of it later each, or as soon as the previous broker is back and
    the new leader (the kill moved it) is known, if later; a further kill only while the load has KAFKA_RESTART_S
    + SELLING_AFTER_S left. The stock lasts past the kills (KAFKA_STOCK_SHARE)."""
    def inject(run: Run) -> None:
        load = run.load
        partition, leader = run.figures["partition"], run.figures["leader_before_load"]
        killed = []
        for k in range(times):
            at(load, (0.1 + k * BROKER_KILL_SPACING) * load.duration_s)
            if k and load.started + load.duration_s - time.monotonic() < KAFKA_RESTART_S + SELLING_AFTER_S:
                break  # no sale would be left to see this kill's restart
            down = kill_now(f"kafka-{leader}")
            run.fault_start = run.fault_start or down
            blocking(stack.control, "start", f"kafka-{leader}")
            killed.append(f"kafka-{leader} at {down - load.started:.1f} s (back after {time.monotonic() - down:.1f} s)")
            if k + 1 < times:
                leader = brokers.leader_of(partition)
        run.fault_end = time.monotonic()
        sale_answered(run)
        run.figures = {**run.figures, "kills": killed, "200s_sent_after_fault": answers_sent(run, run.fault_end)["200"]}
        run.description = (f"kill -9 of the leader of partition {partition}, restarted, {len(killed)}× of {times}: "
                           + ", ".join(killed))
    return inject


def outbox_held() -> dict:
    """The outbox rows not yet sent (NEW), the most claims one of them has had, and the DEAD rows."""
    (new, attempts, dead), = probes.sql(
        "SELECT COALESCE(SUM(status = 'NEW'), 0), COALESCE(MAX(CASE WHEN status = 'NEW' THEN attempts END), 0), "
        "COALESCE(SUM(status = 'DEAD'), 0) FROM orders.outbox_event")
    return {"unsent": int(new), "most_claims": int(attempts), "dead": int(dead)}


def brokers_down(run: Run) -> None:
    """Two of the three brokers (the main item's partition leader, known before the load, and one more) killed at
    0.1 of the load for BROKERS_DOWN_S (at most BROKERS_DOWN_SHARE of the load), then both started again at once:
    no partition has its two in-sync replicas (min.insync.replicas=2) and the controllers have no quorum, so nothing
    can be published. The sale goes on meanwhile and after (the stock lasts: KAFKA_STOCK_SHARE); the relays must
    hold their rows (not DEAD) and catch up. The fault lasts until both brokers answer again."""
    load = run.load
    partition, leader = run.figures["partition"], run.figures["leader_before_load"]
    other = next(n for n in range(1, KAFKA_NODES + 1) if n != leader)
    at(load, 0.1 * load.duration_s)
    run.fault_start = kill_now(f"kafka-{leader}")
    kill_now(f"kafka-{other}")
    gevent.sleep(max(0.0, run.fault_start + min(BROKERS_DOWN_S, BROKERS_DOWN_SHARE * load.duration_s)
                     - time.monotonic()))
    held = blocking(outbox_held)
    restarted = time.monotonic()
    gevent.joinall([gevent.spawn(blocking, stack.control, "start", f"kafka-{n}") for n in (leader, other)], raise_error=True)
    run.fault_end = time.monotonic()
    sale_answered(run)
    down = answers_sent(run, run.fault_start, restarted)
    run.figures = {**run.figures, "down_s": round(restarted - run.fault_start, 1),
                   "restart_s": round(run.fault_end - restarted, 1),
                   "200s_sent_while_down": down["200"],
                   "outbox_unsent_at_restart": held["unsent"], "most_claims_of_an_unsent_row": held["most_claims"],
                   "outbox_dead_at_restart": held["dead"],
                   "200s_sent_after_fault": answers_sent(run, run.fault_end)["200"]}
    run.description = (f"kafka-{leader} (leader of partition {partition}) and kafka-{other} killed at "
                       f"{run.fault_start - load.started:.1f} s, started again after {run.figures['down_s']:g} s "
                       f"(up {run.figures['restart_s']:g} s later)")
