"""Where the stack is and how to reach it, as scripts/stack sets it up (the same environment variables it reads):
the repository's paths, the services' ports and URLs, the topology it runs, its processes."""
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STACK = ROOT / "scripts" / "stack"
RECONCILE = ROOT / "scripts" / "reconcile"
VENV_BIN = ROOT / ".venv" / "bin"
STATE = Path(os.environ.get("FLASHSTOCK_STATE", ROOT / ".stack"))
# the ports scripts/stack starts the services on, moved with the same variables it reads
SERVICES = {"order-api": int(os.environ.get("ORDER_API_PORT", "8080")),
            "outbox-relay": int(os.environ.get("OUTBOX_RELAY_PORT", "8081")),
            "stock-consumer": int(os.environ.get("STOCK_CONSUMER_PORT", "8082"))}
# the cluster topology runs a second instance of each service on its first's port + this (scripts/lib/cluster.sh)
SECOND_OFFSET = int(os.environ.get("SERVICE_SECOND_OFFSET", "10"))
TOPOLOGIES = ("single", "cluster")
API = f"http://127.0.0.1:{SERVICES['order-api']}"
CONSUMER = f"http://127.0.0.1:{SERVICES['stock-consumer']}"
# the order-api of the tools that take a --url
API_URL = os.environ.get("ORDER_API_URL", f"http://127.0.0.1:{os.environ.get('ORDER_API_PORT', '8080')}")
REDIS_PORT = os.environ.get("REDIS_PORT", "6379")

# the topology the fault suite found running, set by configure_topology: the cluster topology has two order-apis
# (the load goes to each in turn, an admin call to the first that answers), two stock-consumers and a Redis Cluster
TOPOLOGY = "single"
OTHER_APIS: list[str] = []
OTHER_CONSUMERS: list[str] = []
REDIS_NODE_PORTS: list[str] = []  # every node of the Redis Cluster; empty on the single topology


def control(*args: str, env: dict | None = None) -> None:
    """scripts/stack with these arguments (start redis, kill order-api, ...); raises if it fails."""
    subprocess.run([str(STACK), *args], check=True, env=env)


def running_topology() -> str:
    """The topology scripts/stack runs (or last ran) in this state folder: single unless told otherwise."""
    r = subprocess.run([str(STACK), "topology"], capture_output=True, text=True, check=False)
    return r.stdout.strip() if r.stdout.strip() in TOPOLOGIES else "single"


def instances(service: str, topology: str) -> list[int]:
    """The ports of a service's instances: one, or two in the cluster topology."""
    port = SERVICES[service]
    return [port, port + SECOND_OFFSET] if topology == "cluster" else [port]


def api_urls() -> list[str]:
    """Every order-api of the stack: the first, then the cluster topology's second."""
    return [API, *OTHER_APIS]


def consumer_urls() -> list[str]:
    """Every stock-consumer of the stack: the first, then the cluster topology's second."""
    return [CONSUMER, *OTHER_CONSUMERS]


def stack_env() -> dict[str, str]:
    """The settings `scripts/stack env` prints (its `export A=1 B=2` lines)."""
    out = subprocess.run([str(STACK), "env"], capture_output=True, text=True, check=True).stdout
    return dict(pair.split("=", 1) for line in out.splitlines() if line.startswith("export ")
                for pair in line.split()[1:])


def configure_topology(wanted: str | None) -> str:
    """Follows the stack's topology (`scripts/stack topology`): on the cluster one, the load and the admin calls go
    to both order-apis, the stock-database probes to either stock-consumer, and Redis is asked as a cluster."""
    global TOPOLOGY, OTHER_APIS, OTHER_CONSUMERS, REDIS_NODE_PORTS
    running = subprocess.run([str(STACK), "topology"], capture_output=True, text=True, check=True).stdout.strip()
    if wanted and wanted != running:
        raise SystemExit(f"--topology {wanted}, but the stack runs the {running} topology (scripts/stack topology)")
    TOPOLOGY = running
    if running == "cluster":
        env = stack_env()
        OTHER_APIS = env["ORDER_API_URLS"].split(",")[1:]
        OTHER_CONSUMERS = [f"http://127.0.0.1:{SERVICES['stock-consumer'] + SECOND_OFFSET}"]
        REDIS_NODE_PORTS = [node.rsplit(":", 1)[1] for node in env["SPRING_DATA_REDIS_CLUSTER_NODES"].split(",")]
    return running


def stack_pids() -> dict[str, int]:
    """The pid of every process the stack started, by component name (redis, or redis-1..6 in the cluster
    topology; order-api and order-api-2; mariadb-2, the database's replica, counted as mariadb; ...)."""
    state = Path(os.environ.get("FLASHSTOCK_STATE", ROOT / ".stack"))
    files = {"redis": state / "redis/redis.pid", "mariadb": state / "mariadb/mariadb.pid",
             "mariadb-2": state / "mariadb-2/mariadb.pid", "kafka": state / "kafka/kafka.pid",
             **{f"redis-{p.parent.name}": p for p in sorted(state.glob("redis-cluster/*/redis.pid"))},
             **{f"kafka-{p.parent.name}": p for p in sorted(state.glob("kafka-cluster/*/kafka.pid"))},
             **{p.stem: p for p in sorted(state.glob("services/*.pid"))}}
    pids = {}
    for name, pid_file in files.items():
        try:
            pids[name] = int(pid_file.read_text().strip())
        except (OSError, ValueError):
            continue
    return pids
