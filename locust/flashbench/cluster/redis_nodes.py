"""What the Redis Cluster says of itself and the commands that move a slot: which node serves an item's slot,
whether a node is a synced replica, whether the cluster is whole."""
import binascii
import subprocess
from dataclasses import dataclass

from flashbench import stack
from flashbench.faults import probes

SLOTS = 16384
MIGRATE_BATCH = 100  # keys per MIGRATE of a migrating slot, as `redis-cli --cluster reshard --cluster-pipeline`
MIGRATE_TIMEOUT_MS = 5000


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
