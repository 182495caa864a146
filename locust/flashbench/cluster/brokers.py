"""What the Kafka brokers say of the sale: the partition an item's events go to and the broker leading it."""
import subprocess

from flashbench import admin, stack
from flashbench.faults.probes import blocking


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
