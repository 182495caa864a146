"""The Redis Cluster's faults under the sale: the primary of the sale's slots killed (its replica promoted), the
old primary back as a replica, the slot migrated live."""
import datetime as dt
import time

from flashbench import stack
from flashbench.cluster import redis_nodes
from flashbench.cluster.fault_steps import kill_now, sale_answered, wait_for
from flashbench.cluster.redis_nodes import MIGRATE_BATCH, Node, item_slot, migrate_slot, replica_synced
from flashbench.cluster.sale_figures import answers_sent, selling_gap
from flashbench.faults.probes import blocking
from flashbench.faults.run import Run, around_sell_out, at

PROMOTION_TIMEOUT_S = 120.0  # cluster-node-timeout (3 s) and the replica's election, with room for a loaded box
REJOIN_TIMEOUT_S = 60.0  # the old primary's restart from its AOF, then a full sync from the promoted replica


def election_won(node: Node, since: float) -> float | None:
    """When the node's log says it won its failover election (the first time after `since`, epoch seconds); Redis
    stamps its log in the machine's local time, to the millisecond."""
    log = stack.STATE / "redis-cluster" / node.component.removeprefix("redis-") / "redis.log"
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        if "Failover election won" in line:
            # "4753:S 26 Nov 2026 11:22:43.814 # Failover election won: I'm the new master."
            stamp = dt.datetime.strptime(" ".join(line.split()[1:5]), "%d %b %Y %H:%M:%S.%f").timestamp()
            if stamp >= since:
                return stamp
    return None


def look_up_owner(run: Run) -> None:
    """Before the load (Scenario.prepare): the primary serving the sale's slot, the live primaries, and one of the
    others (a slot migration's target). CLUSTER NODES asked by a client starved by its own load took 7.4 s on the
    loaded box, and the fault waited for it."""
    slot = item_slot(run.item)
    owner = redis_nodes.slot_owner(slot)
    if owner is None:
        raise RuntimeError(f"no live primary serves slot {slot} of {run.item}")
    primaries = [n for n in redis_nodes.nodes() if n.primary and not n.failed]
    run.prepared.update(owner=owner, primaries=primaries, other=next(n for n in primaries if n.port != owner.port))


def kill_primary(run: Run) -> tuple[Node, Node, float, float]:
    """SIGKILL of the primary serving the item's slot (looked up before the load), then waits for its replica's
    promotion: (victim, new owner, when it was killed, when the new owner won its election), monotonic. The kill is
    sent from here and timed right before it: `scripts/stack kill` took 0.3 s to deliver it on the loaded box, and
    orders sent meanwhile were still sold by the victim. The election's time is read from the new owner's log,
    since a client polling the cluster on a loaded machine sees it late; the time it saw it is the fallback."""
    slot = item_slot(run.item)
    victim = run.prepared["owner"]
    killed_wall = time.time()
    killed_at = kill_now(victim.component)
    seen_at = wait_for(lambda: (redis_nodes.slot_owner(slot) or victim).port != victim.port, PROMOTION_TIMEOUT_S,
                       f"a replica of {victim.component} to be promoted")
    owner = blocking(redis_nodes.slot_owner, slot)
    won = election_won(owner, killed_wall)
    return victim, owner, killed_at, seen_at if won is None else killed_at + (won - killed_wall)


def redis_primary_kill(run: Run) -> None:
    """The primary holding the sale's items (they all hash to its slots) SIGKILLed two seconds before the sell-out;
    its replica is promoted, possibly without the last writes. The engine must not sell from the promoted counters
    until it trusts them (its life check: a rebuild under the fence), then sell on. The fault lasts from the kill to
    the promotion; the killed node comes back as a replica once the load is over, for the scenarios after."""
    load = run.load
    at(load, around_sell_out(load, 2.0))
    victim, owner, run.fault_start, run.fault_end = kill_primary(run)
    killed_at = run.fault_start
    at(load, load.duration_s)
    blocking(stack.control, "start", victim.component)
    rejoined = wait_for(lambda: replica_synced(victim.port), REJOIN_TIMEOUT_S, f"{victim.component} to rejoin")
    run.figures = {"promoted_after_s": round(run.fault_end - killed_at, 2), **selling_gap(run, killed_at),
                   "old_primary_synced_after_restart_s": round(rejoined - load.started - load.duration_s, 2)}
    run.description = (f"kill -9 of {victim.component}, the primary of the sale's slots; {owner.component} promoted "
                       f"after {run.figures['promoted_after_s']:g} s; {victim.component} restarted after the load")


def redis_primary_rejoin(run: Run) -> None:
    """The primary of the sale's slots killed early in the sale (its replica is promoted), then restarted one second
    before the sell-out, while orders flow: it must come back as a replica of the promoted one (a full sync),
    not as a second primary of the slots, and the sale must go on through it. The fault lasts from the restart
    until the old primary is a synced replica."""
    load = run.load
    at(load, 0.15 * load.duration_s)
    victim, owner, killed_at, promoted_at = kill_primary(run)
    at(load, around_sell_out(load, 1.0))
    run.fault_start = time.monotonic()
    blocking(stack.control, "start", victim.component)
    run.fault_end = wait_for(lambda: replica_synced(victim.port), REJOIN_TIMEOUT_S, f"{victim.component} to rejoin")
    run.figures = {"promoted_after_s": round(promoted_at - killed_at, 2), **selling_gap(run, killed_at),
                   "synced_replica_after_restart_s": round(run.fault_end - run.fault_start, 2)}
    run.description = (f"{victim.component} (primary of the sale's slots) killed at "
                       f"{killed_at - load.started:.0f} s, {owner.component} promoted; {victim.component} restarted "
                       f"at {run.fault_start - load.started:.0f} s, a synced replica after "
                       f"{run.figures['synced_replica_after_restart_s']:g} s")


def slot_migration(run: Run) -> None:
    """The main item's slot moved live to another primary two seconds before the sell-out, in batches as `redis-cli
    --cluster reshard` moves a slot (migrate_slot). Measured: how long it took, and what the orders sent meanwhile
    were answered (503 REDIS_UNAVAILABLE for those refused TRYAGAIN)."""
    load = run.load
    slot = item_slot(run.item)
    at(load, around_sell_out(load, 2.0))
    run.fault_start = time.monotonic()
    source, target = run.prepared["owner"], run.prepared["other"]
    moved, calls = blocking(migrate_slot, slot, source, target, run.prepared["primaries"])
    run.fault_end = time.monotonic()
    sale_answered(run)
    during = answers_sent(run, run.fault_start, run.fault_end)
    run.figures = {"slot": slot, "keys_moved": moved, "migrate_calls": calls,
                   "migration_s": round(run.fault_end - run.fault_start, 2),
                   "orders_sent_during": sum(during.values()),
                   "503_during": sum(v for k, v in during.items() if k.startswith("503")),
                   "503_in_all": sum(v for k, v in answers_sent(run, 0.0).items() if k.startswith("503"))}
    run.description = (f"slot {slot} of {run.item} migrated live from {source.component} to {target.component}: "
                       f"{moved} keys in {calls} MIGRATE calls of up to {MIGRATE_BATCH}, "
                       f"{run.figures['migration_s']:g} s")
