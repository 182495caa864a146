"""What the stack holds, as the judge and the faults look it up: Redis's counters, the orders and stock databases'
rows, order-api's meters, and the processes scripts/stack started."""
import os
import subprocess

import gevent

from flashbench import history, stack
from flashbench.stockdb import stock_item

class RedisUnavailable(Exception):
    pass


def redis_cli(*args: str, timeout_s: float = 5) -> subprocess.CompletedProcess:
    """redis-cli against the stack's Redis; on the cluster topology against the first node that answers, following
    MOVED and ASK (-c) to the node that serves the key."""
    if not stack.REDIS_NODE_PORTS:
        return subprocess.run(["redis-cli", "-p", stack.REDIS_PORT, *args], capture_output=True, text=True,
                              timeout=timeout_s)
    r = None
    for port in stack.REDIS_NODE_PORTS:
        r = subprocess.run(["redis-cli", "-c", "-p", port, *args], capture_output=True, text=True, timeout=timeout_s)
        if "Could not connect" not in r.stdout + r.stderr:
            return r
    return r


def redis_counter(item: str) -> int | None:
    """The item's counter; None if Redis holds none. redis-cli exits 0 on error replies (LOADING while it reads
    its AOF), so the answer is told by its text."""
    try:
        r = redis_cli("GET", f"stock:{{{item}}}")
    except subprocess.TimeoutExpired as e:
        raise RedisUnavailable("redis-cli timed out") from e
    out = r.stdout.strip()
    if r.returncode == 0 and out == "":
        return None
    try:
        return int(out)
    except ValueError:
        raise RedisUnavailable((out or r.stderr.strip())[:200]) from None



def blocking(fn, *args):
    """Runs a blocking call (a subprocess, a query) in gevent's thread pool, so that the load keeps going."""
    return gevent.get_hub().threadpool.apply(fn, args)


def sql(query: str) -> list[list[str]]:
    user, password = os.environ.get("DB_USER", "flashstock"), os.environ.get("DB_PASSWORD", "flashstock")
    r = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{os.environ.get('MYSQL_PORT', '3306')}",
                        f"-u{user}", f"-p{password}", "-N", "-B", "-e", query],
                       check=True, capture_output=True, text=True)
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def current_generation(item: str) -> tuple[int, history.Generation]:
    (gen, baseline, limit), = sql("SELECT generation, baseline, per_user_limit FROM orders.stock_item "
                                  f"WHERE item_code = '{item}'")
    return int(gen), history.Generation(int(baseline), None if limit == "NULL" else int(limit))


def committed_units(item: str, generation: int) -> int:
    (units,), = sql(f"SELECT COALESCE(SUM(quantity), 0) FROM orders.purchase_order "
                    f"WHERE item_code = '{item}' AND generation = {generation}")
    return int(units)


def committed_orders(item: str) -> dict[str, history.Order]:
    return {code: history.Order(int(gen), user, int(units)) for code, gen, user, units in sql(
        f"SELECT order_code, generation, user_id, quantity FROM orders.purchase_order WHERE item_code = '{item}'")}


def applied_orders(item: str) -> set[str]:
    """Orders whose deduction the stock database consumed and applied. A deduction it recorded as an anomaly
    that left its units untaken (too few left, or its generation's reset never seen) is not applied; a STALE
    one, whose generation a later reset replaced before it arrived, is: no baseline is left to take it from."""
    return {row[0] for row in sql(
        "SELECT o.order_code FROM orders.purchase_order o JOIN stock.processed_event p ON p.event_id = o.event_id "
        f"WHERE o.item_code = '{item}' AND NOT EXISTS (SELECT 1 FROM stock.stock_anomaly a "
        "WHERE a.event_id = o.event_id AND a.kind IN ('INSUFFICIENT_STOCK', 'UNKNOWN_GENERATION'))")}


def stock_level(item: str) -> history.StockLevel | None:
    level = stock_item(item)
    if not level:
        return None
    return history.StockLevel(int(level["generation"]), int(level["baseline"]), int(level["quantity"]),
                              int(level["eventsApplied"]))


def signal_component(name: str, sig: int) -> None:
    """Sends a signal to a process the stack started: SIGSTOP freezes it (its clients' connections stay open and
    unanswered, as a stalled server or a partition leaves them), SIGCONT thaws it."""
    os.kill(stack.stack_pids()[name], sig)


def in_doubt_left(item: str) -> int:
    """The item's orders held in doubt in Redis (stock:{item}:in-doubt)."""
    return int(redis_cli("HLEN", f"stock:{{{item}}}:in-doubt").stdout.strip())



def dead_rows(item: str) -> int:
    (n,), = sql("SELECT COUNT(*) FROM orders.outbox_event e JOIN orders.purchase_order o ON o.event_id = e.event_id "
                f"WHERE o.item_code = '{item}' AND e.status = 'DEAD'")
    return int(n)


IN_DOUBT_RESULTS = ("committed", "given_back", "recounted")


def actuator_metric(name: str, tag: str | None = None) -> float | None:
    """One of order-api's meters, from its actuator; None when it does not answer."""
    import requests
    try:
        r = requests.get(f"{stack.API}/actuator/metrics/{name}", params={"tag": tag} if tag else None, timeout=5)
        return r.json()["measurements"][0]["value"] if r.status_code == 200 else None
    except (requests.RequestException, ValueError, KeyError, IndexError):
        return None


def in_doubt_settled() -> dict[str, float | None]:
    """order-api's count of orders whose commit was in doubt, by how they were settled (0 when it is down), and
    when its process started (`started`), which tells a restarted one."""
    counts: dict[str, float | None] = {
        result: actuator_metric("flashstock.order.in-doubt.settled", f"result:{result}") or 0.0
        for result in IN_DOUBT_RESULTS}
    counts["started"] = actuator_metric("process.start.time")
    return counts


def settled_during(before: dict[str, float | None]) -> dict[str, int]:
    """Orders settled since `before`; a restarted order-api counts from zero again."""
    after = in_doubt_settled()
    same_process = before["started"] is not None and after["started"] == before["started"]
    return {k: int(after[k] - before[k] if same_process else after[k]) for k in IN_DOUBT_RESULTS}
