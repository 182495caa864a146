"""The fault suite's cluster topology (`scripts/stack up --cluster`): what it asks the Redis Cluster and the brokers
(which node serves an item's slot, which broker leads its partition), and the faults only a cluster has: a Redis
primary killed and its replica promoted, the old primary back as a replica, a live slot migration, the partition
leader killed, two of three brokers down. flashbench.faults runs them as it runs the others (`scripts/faults --topology
cluster`), under the same load and checker.
"""
import binascii
import datetime as dt
import os
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import gevent

from flashbench import admin, stack
from flashbench.polling import wait_until
from flashbench.faults import probes
from flashbench.faults.probes import blocking
from flashbench.faults.run import Run, Scenario, around_sell_out, at, wait_cooperatively

SLOTS = 16384
STATE = stack.STATE
REDIS_NODES, KAFKA_NODES = 6, 3  # as scripts/lib/cluster.sh
PROMOTION_TIMEOUT_S = 120.0  # cluster-node-timeout (3 s) and the replica's election, with room for a loaded box
REJOIN_TIMEOUT_S = 60.0  # the old primary's restart from its AOF, then a full sync from the promoted replica
MIGRATE_BATCH = 100  # keys per MIGRATE of a migrating slot, as `redis-cli --cluster reshard --cluster-pipeline`
MIGRATE_TIMEOUT_MS = 5000
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


def item_slot(item: str) -> int:
    """The hash slot of every key of the item: its keys carry the item code as hash tag (CRC16 XMODEM)."""
    return binascii.crc_hqx(item.encode(), 0) % SLOTS


@dataclass(frozen=True)
class Node:
    id: str
    port: int
    primary: bool
    failed: bool
    slots: tuple[tuple[int, int], ...]

    @property
    def component(self) -> str:
        """The node's name for scripts/stack (redis-1..redis-6)."""
        return f"redis-{self.port - int(stack.REDIS_NODE_PORTS[0]) + 1}"

    def serves(self, slot: int) -> bool:
        return any(lo <= slot <= hi for lo, hi in self.slots)


def nodes() -> list[Node]:
    """The cluster as the first node that answers sees it (CLUSTER NODES)."""
    found = []
    for line in probes.redis_cli("CLUSTER", "NODES").stdout.splitlines():
        f = line.split()
        if len(f) < 8:
            continue
        slots = []
        for s in f[8:]:
            if s.startswith("["):  # a slot being imported or migrated: its owner is still the range's
                continue
            lo, _, hi = s.partition("-")
            slots.append((int(lo), int(hi or lo)))
        flags = f[2].split(",")
        found.append(Node(f[0], int(f[1].split("@")[0].rsplit(":", 1)[1]), "master" in flags,
                          "fail" in flags or "fail?" in flags, tuple(slots)))
    return found


def slot_owner(slot: int) -> Node | None:
    """The live primary serving the slot; None while none does (its primary failed, no replica promoted yet)."""
    return next((n for n in nodes() if n.primary and not n.failed and n.serves(slot)), None)


def cli(port: int, *args: str) -> str:
    r = subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True, timeout=10)
    if r.returncode != 0 or r.stdout.startswith("ERR") or "Could not connect" in r.stdout + r.stderr:
        raise RuntimeError(f"redis-cli -p {port} {' '.join(args)}: {(r.stdout + r.stderr).strip()[:300]}")
    return r.stdout


def replica_synced(port: int) -> bool:
    """Whether the node runs as a replica whose link to its primary is up and not in a full sync."""
    try:
        info = cli(port, "INFO", "replication")
    except (RuntimeError, subprocess.TimeoutExpired):
        return False
    return "role:slave" in info and "master_link_status:up" in info and "master_sync_in_progress:0" in info


def pid_alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text().strip()), 0)
        return True
    except (OSError, ValueError):
        return False


def cluster_ok() -> bool:
    """Every node up and agreeing the cluster is whole: state ok, all slots served, no node flagged failing."""
    try:
        for port in stack.REDIS_NODE_PORTS:
            if "cluster_state:ok" not in cli(int(port), "CLUSTER", "INFO"):
                return False
        return all(not n.failed for n in nodes()) and all(
            any(n.primary and n.serves(s) for n in nodes()) for s in (0, SLOTS // 2, SLOTS - 1))
    except (RuntimeError, subprocess.TimeoutExpired):
        return False


def ensure_whole() -> None:
    """Before a scenario on the cluster topology: any Redis node or broker an earlier one left down is started
    again, and the scenario waits until the Redis Cluster is whole."""
    for n in range(1, REDIS_NODES + 1):
        if not pid_alive(STATE / "redis-cluster" / str(n) / "redis.pid"):
            stack.control("start", f"redis-{n}")
    for n in range(1, KAFKA_NODES + 1):
        if not pid_alive(STATE / "kafka-cluster" / str(n) / "kafka.pid"):
            stack.control("start", f"kafka-{n}")
    wait_until(cluster_ok, 60, "the Redis Cluster to be whole", interval_s=0.5)


def wait_for(predicate, timeout_s: float, what: str) -> float:
    """Polls a blocking predicate in the thread pool, cooperatively; when it held (monotonic)."""
    deadline = time.monotonic() + timeout_s
    while not blocking(predicate):
        if time.monotonic() >= deadline:
            raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        gevent.sleep(0.1)
    return time.monotonic()


def selling_gap(run: Run, kill_at: float) -> dict:
    """The gap in selling on the shard, over every item of the sale (they share it): from the last 200 answered
    before the kill to the first 200 answered to an order sent after it."""
    requests = [r for load in run.all_loads() for r in load.requests if r.status == 200]
    before = [r.answered_at for r in requests if r.answered_at <= kill_at]
    after = [r.answered_at for r in requests if r.sent_at >= kill_at]
    figures = {"last_200_before_kill_s": round(max(before) - kill_at, 2) if before else None,
               "first_200_after_kill_s": round(min(after) - kill_at, 2) if after else None}
    if before and after:
        figures["selling_gap_s"] = round(min(after) - max(before), 2)
    return figures


def election_won(node: Node, since: float) -> float | None:
    """When the node's log says it won its failover election (the first time after `since`, epoch seconds); Redis
    stamps its log in the machine's local time, to the millisecond."""
    log = STATE / "redis-cluster" / node.component.removeprefix("redis-") / "redis.log"
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
    owner = slot_owner(slot)
    if owner is None:
        raise RuntimeError(f"no live primary serves slot {slot} of {run.item}")
    primaries = [n for n in nodes() if n.primary and not n.failed]
    run.prepared.update(owner=owner, primaries=primaries, other=next(n for n in primaries if n.port != owner.port))


def kill_now(component: str) -> float:
    """SIGKILL of a node of the stack, sent from here; when it was sent (monotonic). `scripts/stack kill` took 0.3 s
    to 2.2 s to deliver it on the loaded box, and a Redis primary went on selling meanwhile; it is called after the
    signal, to wait until the process is gone and forget its pid file."""
    pid = stack.stack_pids()[component]
    sent = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    blocking(stack.control, "kill", component)
    return sent


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
    seen_at = wait_for(lambda: (slot_owner(slot) or victim).port != victim.port, PROMOTION_TIMEOUT_S,
                       f"a replica of {victim.component} to be promoted")
    owner = blocking(slot_owner, slot)
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


def migrate_slot(slot: int, source: Node, target: Node, primaries: list[Node]) -> tuple[int, int]:
    """Moves the slot from source to target as `redis-cli --cluster reshard` does: SETSLOT IMPORTING on the target,
    MIGRATING on the source, then the slot's keys in batches of MIGRATE_BATCH (GETKEYSINSLOT, one MIGRATE … KEYS of
    them), then SETSLOT NODE on the target, the source and every other primary. Returns (keys moved, MIGRATE calls).
    While it runs, a script finding none of its keys on the source is sent on (ASK), one finding some is refused
    (TRYAGAIN)."""
    cli(target.port, "CLUSTER", "SETSLOT", str(slot), "IMPORTING", source.id)
    cli(source.port, "CLUSTER", "SETSLOT", str(slot), "MIGRATING", target.id)
    moved = calls = 0
    while keys := cli(source.port, "CLUSTER", "GETKEYSINSLOT", str(slot), str(MIGRATE_BATCH)).split():
        cli(source.port, "MIGRATE", "127.0.0.1", str(target.port), "", "0", str(MIGRATE_TIMEOUT_MS), "KEYS", *keys)
        moved, calls = moved + len(keys), calls + 1
    for n in [target, source, *(n for n in primaries if n.port not in (source.port, target.port))]:
        cli(n.port, "CLUSTER", "SETSLOT", str(slot), "NODE", target.id)
    return moved, calls


def answers_sent(run: Run, start: float, end: float = float("inf")) -> Counter:
    """The answers, over every item of the sale, to the orders sent from start to end (monotonic), by status and
    code."""
    return Counter(str(r.status) + (f" {r.code}" if r.status != 200 and r.code else "")
                   for load in run.all_loads() for r in load.requests if start <= r.sent_at <= end)


def sale_answered(run: Run) -> None:
    """Waits (cooperatively) until every order of the sale was sent and answered, for figures on the orders sent
    after a fault; at most two minutes past the load's end."""
    load = run.load
    wait_cooperatively(lambda: all(len(ld.requests) >= len(ld.draws) for ld in run.all_loads()),
                              max(0.0, load.started + load.duration_s - time.monotonic()) + 120)


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


def item_partition(item: str) -> int:
    status, report = admin.call("GET", f"/admin/reconciliation?itemCode={item}")
    if status != 200:
        raise RuntimeError(f"the reconciliation of {item} answered {status}: {report}")
    return int(report["items"][0]["partition"])


def partition_leaders() -> dict[int, int]:
    """Partition → the broker leading it, from `scripts/stack partitions` ("p0 leader 2 isr 2,3,1, p1 ...")."""
    out = subprocess.run([str(stack.STACK), "partitions"], capture_output=True, text=True, timeout=60).stdout
    leaders = {}
    for part in out.strip().split(", p"):
        f = part.lstrip("p").split()
        if len(f) >= 3 and f[1] == "leader" and f[2].lstrip("-").isdigit():
            leaders[int(f[0])] = int(f[2])
    return leaders


def leader_of(partition: int) -> int:
    leader = blocking(partition_leaders).get(partition, -1)
    if leader < 1:
        raise RuntimeError(f"partition {partition} has no leader")
    return leader


def look_up_leader(run: Run) -> None:
    """Before the load (Scenario.prepare): the main item's partition and the broker leading it. Both take an admin
    call and a Kafka tool's JVM, 16 s on a loaded box: looked up during the load, the fault came after the sell-out."""
    partition = item_partition(run.item)
    run.figures = {**run.figures, "partition": partition, "leader_before_load": leader_of(partition)}


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
                leader = leader_of(partition)
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


SCENARIOS = {
    "redis-primary-kill": Scenario(redis_primary_kill, prepare=look_up_owner),
    "redis-primary-rejoin": Scenario(redis_primary_rejoin, prepare=look_up_owner),
    "slot-migration": Scenario(slot_migration, prepare=look_up_owner),
    "broker-leader-kill": Scenario(broker_leader_kill(3), prepare=look_up_leader,
                                          duration_factor=KAFKA_DURATION_FACTOR, stock_share=KAFKA_STOCK_SHARE),
    "brokers-down": Scenario(brokers_down, prepare=look_up_leader, duration_factor=KAFKA_DURATION_FACTOR,
                                    stock_share=KAFKA_STOCK_SHARE),
}
# the cluster topology's run: its own faults, then the kills of one of the two order-apis, relays and consumers
DEFAULT = [*SCENARIOS, "api-kill", "relay-kill", "consumer-kill"]
