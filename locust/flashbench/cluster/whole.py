"""The cluster topology made whole again before a scenario: whatever node an earlier one left down started."""
import os
from pathlib import Path

from flashbench import stack
from flashbench.cluster.redis_nodes import cluster_ok
from flashbench.polling import wait_until

REDIS_NODES, KAFKA_NODES = 6, 3  # as scripts/lib/cluster.sh


def pid_alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text().strip()), 0)
        return True
    except (OSError, ValueError):
        return False


def ensure_whole() -> None:
    """Before a scenario on the cluster topology: any Redis node or broker an earlier one left down is started
    again, and the scenario waits until the Redis Cluster is whole. A Redis node is started through the whole
    cluster's start, which also waits until every replica has synced and written its AOF: a primary killed while
    its replica still syncs would not be replaced."""
    if not all(pid_alive(stack.STATE / "redis-cluster" / str(n) / "redis.pid") for n in range(1, REDIS_NODES + 1)):
        stack.control("start", "redis")
    for n in range(1, KAFKA_NODES + 1):
        if not pid_alive(stack.STATE / "kafka-cluster" / str(n) / "kafka.pid"):
            stack.control("start", f"kafka-{n}")
    wait_until(cluster_ok, 60, "the Redis Cluster to be whole", interval_s=0.5)
