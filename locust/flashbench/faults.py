"""Fault injection under load and under scarcity: each scenario sends a steady stream of orders for an item whose
stock runs out while one part of the stack is broken, lets the pipeline drain, reconciles, and judges the whole
history of requests (flashbench/history.py). A scenario passes only if nothing was oversold (per generation,
Σ units committed ≤ its baseline), nothing lost (every 200 names an order that was committed and applied in the
stock database), no refused order was committed anyway, nothing applied twice, no user went over the per-user
limit, and the reconciliation is exact. Stranded units (stock Redis can no longer sell) are reported.

    scripts/faults [--topology single|cluster] [--scenarios relay-kill,consumer-kill,api-kill,api-kill-in-doubt,kafka-stop,db-stop,redis-restart,
                                reload-storm,redis-aof-kill,reset-during-load,per-user-limit,entry-flood,units-back-in-crowd]
                   [--rate 300] [--duration 60] [--stock N | --stock-share 0.4] [--out DIR]

Orders ask for 1–3 units (uniformly), and the item's stock is by default 40 % of the units the load asks for, so
that it runs out mid-run; the faults are timed around the moment it would run out if every order were served.
Every second order carries an Idempotency-Key. The load is an open model (a request is started every 1/rate s
whether or not earlier ones answered), so a stalled server is not hidden by a client that waits for it.

Scenarios: relay-kill, consumer-kill (kill -9 and restart, 3×), api-kill (1×; its reconciliation may need
--repair-redis for the units a killed process took without committing), api-kill-in-doubt (MariaDB frozen until
orders are in doubt, then order-api killed with them and restarted: they must be settled by the restarted one, with
no repair), kafka-stop (15 s), db-stop (10 s),
redis-restart (no persistence: the engine rebuilds the lost counter by itself), reload-storm (a reload every
0.5 s while orders arrive), redis-aof-kill (Redis with AOF everysec, SIGKILLed and restarted with the last second
of its AOF cut off, so it comes back stale), reset-during-load (a new generation while orders arrive: each is
judged against its own baseline), per-user-limit (redis-restart with a limit of 3 per user and a small pool of
users), entry-flood (an item sold through its waiting room: real users enter, poll until admitted and order with
their ticket, at a tenth of the rate (each polls too), entering again when refused 429/503 or when their admission
ended, while throwaway ids flood the room from 32 connections and never order; the sale must sell its whole stock
to the real users. order-api runs it with 10 s admissions and one waiting ticket per unit left, so that the rounds in
which the bots' unused admissions hold the units fit in the run and the room's bound binds), units-back-in-crowd (an
item sold through purchase tokens at half the rate: throwaway ids hold a fifth of the stock with tokens they never
redeem, the crowd buys the rest and is answered SOLD_OUT from each order-api's memory of the sell-out, then the holds
expire (order-api runs it with tokens of 10 s) and their units must be sold to the crowd still asking, none unsold).

On the cluster topology (`scripts/stack up --cluster`; the suite follows `scripts/stack topology`) the orders go to
the two order-apis in turn, and each scenario sells, beside its item, three more on the same Redis shard: one with a
per-user limit of 3, one through the token gate, one through the waiting room (SIDE_ITEMS),
each judged as its own row. Its scenarios (flashbench/cluster.py): redis-primary-kill (the shard's primary SIGKILLed
before the sell-out, its replica promoted; the gap in selling measured), redis-primary-rejoin (the old primary back
as a replica while orders flow), slot-migration (the item's slot moved live, in batches of keys), broker-leader-kill
(the partition's leader SIGKILLed and restarted, 3×), brokers-down (two of three brokers down for up to 30 s while
the sale goes on: no outbox row may be given up as DEAD; both Kafka faults run three times --duration, with stock that lasts
past them), then api-kill, relay-kill and consumer-kill of the first of the two instances. The report adds
what each measured and every item's time from commit to application before, during and after its fault.

Writes faults.md (the table of docs/reliability.md), faults.json, and for each scenario its reconciliation,
findings.txt (what the checker found) and answers.csv (every request: when it was sent and answered, its status,
problem code, order code, units, user and Idempotency-Key).
"""
import argparse
import csv
import dataclasses
import datetime as dt
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gevent
import gevent.event
import gevent.pool
from geventhttpclient import HTTPClient, URL

from flashbench import history
from flashbench.bench import ROOT, SERVICES, STACK, admin_headers, stack_pids, wait_until

RECONCILE = ROOT / "scripts" / "reconcile"
API = f"http://127.0.0.1:{SERVICES['order-api']}"
# the stack's topology (scripts/stack topology), set by configure_topology: the cluster topology has two order-apis
# (the load goes to each in turn, an admin call to the first that answers), two stock-consumers and a Redis Cluster
TOPOLOGY = "single"
OTHER_APIS: list[str] = []
OTHER_CONSUMERS: list[str] = []
REDIS_PORT = os.environ.get("REDIS_PORT", "6379")
REDIS_NODE_PORTS: list[str] = []  # every node of the Redis Cluster; empty on the single topology
SECOND_INSTANCE_OFFSET = int(os.environ.get("SERVICE_SECOND_OFFSET", "10"))  # as scripts/lib/cluster.sh
# where scripts/stack keeps Redis's files; Redis 7 writes its AOF into appendonlydir (the stack keeps that name)
REDIS_DIR = Path(os.environ.get("FLASHSTOCK_STATE", ROOT / ".stack")) / "redis"
AOF_DIR = REDIS_DIR / "appendonlydir"

MAX_UNITS = 3  # order quantities are drawn uniformly from 1..MAX_UNITS
MEAN_UNITS = (1 + MAX_UNITS) / 2
STOCK_SHARE = 0.4  # default stock: this share of the units the load asks for
PER_USER_LIMIT = 3
RELOAD_EVERY_S = 0.5
IN_DOUBT_TRIES = 20  # freezes of MariaDB, each until it shows whether it caught a commit (or IN_DOUBT_WAIT_S)
IN_DOUBT_WAIT_S = 5.0  # a commit the freeze caught is answered ORDER_OUTCOME_UNKNOWN within about 3 s
OUTAGE_GRACE_S = 0.5  # after the outage's first answer, for the answers that left order-api with it to come in
SETTLED_WITHIN_S = 120.0  # order-api's restart (its AOT cache, or a JIT start), then abandoned-after (10 s)
LOST_TAIL_S = 1.0  # what appendfsync everysec may lose in a crash of the machine
FINDINGS_IN_OUTCOME = 20  # faults.json keeps the first ones; findings.txt has them all
TICKETS = "/order/stock/queue/tickets"
TOKENS = "/order/stock/tokens"
JSON_HEADERS = {"Content-Type": "application/json"}
QUEUE_PATIENCE_S = 300.0  # how long a real user of a waiting room keeps entering and polling
FLOOD_CLIENTS = 32
SELLING_GAP_TARGET_S = 10.0  # the cluster topology's Redis failover: last 200 before the kill → first 200 after


# ---------------------------------------------------------------- the load

@dataclass(frozen=True)
class Draw:
    """One order of the load, drawn before it starts: the faults are timed from the draws."""
    units: int
    user_id: str
    idempotency_key: str | None


def draw_orders(n: int, users: int | None, seed: str) -> list[Draw]:
    """`n` orders of 1..MAX_UNITS units, each from a new user, or from a pool of `users` when there is a limit."""
    rng = random.Random(seed)
    draws = []
    for i in range(n):
        units = rng.randint(1, MAX_UNITS)
        user = f"user-{rng.randrange(users)}" if users else f"user-{rng.getrandbits(64):016x}"
        # every second order carries a key, so that the replay path is under the faults as well
        key = f"{rng.getrandbits(128):032x}" if i % 2 == 0 else None
        draws.append(Draw(units, user, key))
    return draws


def ideal_sell_out(draws: list[Draw], stock: int, per_user_limit: int | None) -> int | None:
    """The index of the first order refused for want of stock, if every order were served in turn with no fault;
    None if the stock lasts. Orders over the per-user limit are refused without taking stock."""
    left, bought = stock, Counter()
    for i, d in enumerate(draws):
        if per_user_limit is not None and bought[d.user_id] + d.units > per_user_limit:
            continue
        if d.units > left:
            return i
        left -= d.units
        bought[d.user_id] += d.units
    return None


def user_pool(stock: int, per_user_limit: int) -> int:
    """Users to draw from so that the limit refuses many orders and the stock still runs out: a user can rarely
    fill the limit exactly (2 of 3 taken leaves room for a 1 only), so stock / limit users could not buy it all;
    twice that many can."""
    return max(1, math.ceil(2 * stock / per_user_limit))


class Load:
    """Orders at a constant arrival rate, in greenlets, recording every request. A scenario may hold the sending
    (`pause`) until the requests in flight are answered, and `resume` it: the orders due meanwhile go at once."""

    def __init__(self, item: str, rate: float, draws: list[Draw]):
        self.item, self.rate, self.draws = item, rate, draws
        self.duration_s = len(draws) / rate
        self.requests: list[history.Request] = []
        # one client per order-api; the orders go to each in turn
        self.clients = [HTTPClient.from_url(URL(url), concurrency=400, connection_timeout=2, network_timeout=10)
                        for url in api_urls()]
        self.started = 0.0
        self.sell_out_s = self.duration_s  # set by the scenario from the draws
        self.pool_size = 2000
        self.in_flight = 0
        self.sending = gevent.event.Event()
        self.sending.set()

    def pause(self) -> None:
        self.sending.clear()

    def resume(self) -> None:
        self.sending.set()

    def client(self, i: int) -> HTTPClient:
        """The client of the i-th order: the order-apis in turn."""
        return self.clients[i % len(self.clients)]

    def _one(self, d: Draw, i: int = 0) -> None:
        body = json.dumps({"itemCode": self.item, "userId": d.user_id, "quantity": d.units})
        headers = {"Content-Type": "application/json"}
        if d.idempotency_key:
            headers["Idempotency-Key"] = d.idempotency_key
        sent = time.monotonic()
        try:
            r = self.client(i).post("/order/stock/limit", body=body, headers=headers)
            payload = parse_json(r.read())
            status, code, order = r.status_code, payload.get("code"), payload.get("orderCode")
        except Exception as e:  # connection refused while order-api is down is an answer of its own kind
            status, code, order = -1, type(e).__name__, None
        finally:
            self.in_flight -= 1
        self.requests.append(history.Request(sent, time.monotonic(), status, code, order, d.units, d.user_id,
                                             d.idempotency_key))

    def judged_requests(self, orders: dict[str, history.Order]) -> list[history.Request]:
        """The requests as the checker judges them, given the committed orders."""
        return self.requests

    def run(self) -> gevent.Greenlet:
        def loop():
            pool = gevent.pool.Pool(self.pool_size)
            self.started = time.monotonic()
            for i, d in enumerate(self.draws):
                delay = self.started + i / self.rate - time.monotonic()
                if delay > 0:
                    gevent.sleep(delay)
                self.sending.wait()
                # counted from the spawn: a request spawned and not yet started is in flight too
                self.in_flight += 1
                pool.spawn(self._one, d, i)
            pool.join()
        return gevent.spawn(loop)


class QueueLoad(Load):
    """Real users of a waiting-room item, arriving as the orders of Load: each enters (again after Retry-After while
    refused 429), polls its ticket until it is admitted or learns the sale is over, then orders with it (the draw's
    Idempotency-Key too). A flow is recorded as one request: the order's answer, or the refusal that ended it (the
    poll's sell-out notice as a 409 SOLD_OUT). Its order code is known only from a 200, so a refused flow is judged
    by its user's committed order, if any: each real user enters once."""

    def __init__(self, item: str, rate: float, draws: list[Draw]):
        super().__init__(item, rate, draws)
        # waiting users hold a greenlet each, not a connection
        self.pool_size = 20_000

    def _one(self, d: Draw, i: int = 0) -> None:
        sent = time.monotonic()
        try:
            status, code, order = self._flow(d, self.client(i))
        except Exception as e:  # connection refused while order-api is down is an answer of its own kind
            status, code, order = -1, type(e).__name__, None
        self.requests.append(history.Request(sent, time.monotonic(), status, code, order, d.units, d.user_id,
                                             d.idempotency_key))

    def _flow(self, d: Draw, client: HTTPClient) -> tuple[int, str | None, str | None]:
        body = json.dumps({"itemCode": self.item, "userId": d.user_id, "quantity": d.units})
        deadline = time.monotonic() + QUEUE_PATIENCE_S
        while time.monotonic() < deadline:
            r = client.post(TICKETS, body=body, headers=JSON_HEADERS)
            payload = parse_json(r.read())
            if r.status_code in (429, 503):
                gevent.sleep(min(5.0, float(r.get("Retry-After") or 1)))
                continue
            if r.status_code != 201:
                return r.status_code, payload.get("code"), None
            ticket = payload
            while ticket.get("status") == "WAITING" and time.monotonic() < deadline:
                gevent.sleep(max(50, ticket.get("pollAfterMillis") or 250) / 1000)
                r = client.get(f"{TICKETS}/{ticket['ticket']}")
                polled = parse_json(r.read())
                if r.status_code == 200:  # a refused poll (503) is tried again
                    ticket = {**polled, "ticket": ticket["ticket"]}
            if ticket.get("status") == "SOLD_OUT":
                return 409, "SOLD_OUT", None
            if ticket.get("status") != "ADMITTED":
                continue  # the admission ended before its user came back: in again at the back, as a user would
            headers = {**JSON_HEADERS, "Queue-Ticket": ticket["ticket"]}
            if d.idempotency_key:
                headers["Idempotency-Key"] = d.idempotency_key
            r = client.post("/order/stock/limit", body=body, headers=headers)
            payload = parse_json(r.read())
            if r.status_code == 409 and payload.get("code") == "ADMISSION_EXPIRED":
                continue
            return r.status_code, payload.get("code"), payload.get("orderCode")
        return -1, "PATIENCE_EXHAUSTED", None

    def judged_requests(self, orders: dict[str, history.Order]) -> list[history.Request]:
        by_user = {order.user_id: code for code, order in orders.items()}
        return [r if r.status == 200 or r.order_code else dataclasses.replace(r, order_code=by_user.get(r.user_id))
                for r in self.requests]


class TokenLoad(QueueLoad):
    """Users of a token-gate item, arriving as the orders of Load: each asks for a purchase token (again after
    Retry-After while refused 429 or 503), then orders with it at once. A flow is recorded as one request, judged
    as a waiting room's (QueueLoad): by its user's committed order when it was refused."""

    def _flow(self, d: Draw, client: HTTPClient) -> tuple[int, str | None, str | None]:
        body = json.dumps({"itemCode": self.item, "userId": d.user_id, "quantity": d.units})
        deadline = time.monotonic() + QUEUE_PATIENCE_S
        while True:
            r = client.post(TOKENS, body=body, headers=JSON_HEADERS)
            payload = parse_json(r.read())
            if r.status_code in (429, 503) and time.monotonic() < deadline:
                gevent.sleep(min(5.0, float(r.get("Retry-After") or 1)))
                continue
            if r.status_code != 201:
                return r.status_code, payload.get("code"), None
            break
        headers = {**JSON_HEADERS, "Authorization": f"Bearer {payload['token']}"}
        if d.idempotency_key:
            headers["Idempotency-Key"] = d.idempotency_key
        r = client.post("/order/stock/limit", body=body, headers=headers)
        payload = parse_json(r.read())
        return r.status_code, payload.get("code"), payload.get("orderCode")


def parse_json(raw: bytes) -> dict:
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:  # a proxy's or container's HTML error page
        return {}
    return payload if isinstance(payload, dict) else {}


# ---------------------------------------------------------------- talking to the stack

_admin_client: HTTPClient | None = None
_other_admin_clients: dict[str, HTTPClient] = {}


def api_urls() -> list[str]:
    """Every order-api of the stack: the first, then the cluster topology's second."""
    return [API, *OTHER_APIS]


def admin(method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """An admin request, cooperatively (the load keeps going meanwhile), to the first order-api that answers;
    (-1, {code: error}) if none answered."""
    global _admin_client
    if _admin_client is None:
        # a reload waits for the takes in flight (up to the take deadline and the commit timeout)
        _admin_client = HTTPClient.from_url(URL(API), concurrency=32, connection_timeout=5, network_timeout=60)
    headers = {**admin_headers(), "Content-Type": "application/json"}
    answer: tuple[int, dict] = (-1, {})
    for url in api_urls():
        client = _admin_client if url == API else _other_admin_clients.setdefault(
            url, HTTPClient.from_url(URL(url), concurrency=32, connection_timeout=5, network_timeout=60))
        try:
            r = client.request(method, path, body=json.dumps(body) if body is not None else b"", headers=headers)
            return r.status_code, parse_json(r.read())
        except Exception as e:
            answer = (-1, {"code": type(e).__name__})
    return answer


def answer_key(status: int, payload: dict) -> str:
    return str(status) + (f" {payload['code']}" if status != 200 and payload.get("code") else "")


def set_stock(item: str, quantity: int, per_user_limit: int | None, timeout_s: float = 30,
              gate: str = "redis") -> dict:
    """Starts a new generation of the item; returns order-api's view of it (generation, baseline, ...).

    Retried while order-api cannot do it yet: Redis just restarted, a rebuild of the counter holds the item
    (503), or order-api itself is restarting (no answer)."""
    deadline = time.monotonic() + timeout_s
    while True:
        status, payload = admin("PUT", f"/admin/items/{item}/stock",
                                {"quantity": quantity, "perUserLimit": per_user_limit, "gate": gate})
        if status == 200:
            return payload
        if status not in (503, -1) or time.monotonic() > deadline:
            raise RuntimeError(f"stock reset of {item} refused: {answer_key(status, payload)} {payload}")
        gevent.sleep(0.5)


def stock_item(item: str) -> dict:
    """The stock database's row of the item, from the first stock-consumer that answers; {} if none has it."""
    import requests
    for url in [f"http://127.0.0.1:{SERVICES['stock-consumer']}", *OTHER_CONSUMERS]:
        try:
            r = requests.get(f"{url}/stock/items/{item}", timeout=5)
        except requests.RequestException:
            continue
        return r.json() if r.status_code == 200 else {}
    return {}


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
        OTHER_CONSUMERS = [f"http://127.0.0.1:{SERVICES['stock-consumer'] + SECOND_INSTANCE_OFFSET}"]
        REDIS_NODE_PORTS = [node.rsplit(":", 1)[1] for node in env["SPRING_DATA_REDIS_CLUSTER_NODES"].split(",")]
    return running


def stack(*args: str, env: dict | None = None) -> None:
    subprocess.run([str(STACK), *args], check=True, env=env)


def redis_env(appendonly: bool) -> dict:
    """The environment for `scripts/stack start redis`: AOF everysec, or the stack's normal Redis."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_APPENDONLY"}
    if appendonly:
        env["REDIS_APPENDONLY"] = "yes"
    return env


class RedisUnavailable(Exception):
    pass


def redis_cli(*args: str, timeout_s: float = 5) -> subprocess.CompletedProcess:
    """redis-cli against the stack's Redis; on the cluster topology against the first node that answers, following
    MOVED and ASK (-c) to the node that serves the key."""
    if not REDIS_NODE_PORTS:
        return subprocess.run(["redis-cli", "-p", REDIS_PORT, *args], capture_output=True, text=True,
                              timeout=timeout_s)
    r = None
    for port in REDIS_NODE_PORTS:
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


def first_counter_reading(item: str, timeout_s: float = 30) -> tuple[float, int | None]:
    """Polls Redis while it is being started, until it answers: when it did, and the item's counter as Redis
    restored it, before order-api (which reconnects with its own backoff) gets to rebuild it."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return time.monotonic(), redis_counter(item)
        except RedisUnavailable:
            if time.monotonic() > deadline:
                raise TimeoutError(f"Redis did not answer within {timeout_s:.0f} s") from None
            time.sleep(0.005)


def start_redis(item: str, appendonly: bool) -> tuple[float, int | None]:
    """`scripts/stack start redis`, with the item's counter caught as soon as Redis answers."""
    pool = gevent.get_hub().threadpool
    starting = pool.spawn(stack, "start", "redis", env=redis_env(appendonly))
    reading = pool.spawn(first_counter_reading, item)
    up_at, counter = reading.get()
    starting.get()  # raises if the start failed
    return up_at, counter


def forget_aof() -> None:
    """Removes Redis's AOF files (Redis must be stopped), so that the next start with AOF begins empty rather
    than from what an earlier run left."""
    shutil.rmtree(AOF_DIR, ignore_errors=True)
    (REDIS_DIR / "appendonly.aof").unlink(missing_ok=True)  # Redis 6's single file


def aof_tail() -> Path:
    """The AOF file Redis appends its writes to: the last incremental file of its manifest (Redis 7), or the
    single appendonly.aof of Redis 6."""
    manifests = list(AOF_DIR.glob("*.manifest"))
    if not manifests:
        return REDIS_DIR / "appendonly.aof"
    entries = [dict(zip(t[::2], t[1::2])) for t in (line.split() for line in manifests[0].read_text().splitlines())]
    return AOF_DIR / [e["file"] for e in entries if e.get("type") == "i"][-1]


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


# ---------------------------------------------------------------- one run of a scenario

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


def kill_and_restart(component: str, times: int):
    """kill -9 and start again, `times` times. Several kills are spread from half the sell-out time to one and a
    half times it, so that the stock runs out between the first and the last; a single kill is at the sell-out."""
    def inject(run: Run) -> None:
        load = run.load
        spread = [1.0] if times == 1 else [0.5 + k / (times - 1) for k in range(times)]
        for share in spread:
            at(load, min(max(0.1 * load.duration_s, share * load.sell_out_s), 0.9 * load.duration_s))
            run.fault_start = run.fault_start or time.monotonic()
            blocking(stack, "kill", component)
            blocking(stack, "start", component)
        run.fault_end = time.monotonic()
        run.description = f"kill -9 of {component}, restarted, {times}×"
    return inject


def stop_for(component: str, seconds: float):
    """Stopped for `seconds`, centred on the sell-out."""
    def inject(run: Run) -> None:
        at(run.load, around_sell_out(run.load, seconds / 2))
        run.fault_start = time.monotonic()
        blocking(stack, "stop", component)
        gevent.sleep(seconds)
        blocking(stack, "start", component)
        run.fault_end = time.monotonic()
        run.description = f"{component} stopped for {seconds:.0f} s"
    return inject


def redis_restart(run: Run) -> None:
    """Redis without persistence stopped and started: the counters are gone, and order-api must rebuild them by
    itself (no operator reload). The fault ends when Redis answers; the first 200 after it shows the healing."""
    at(run.load, around_sell_out(run.load, 1.0))
    run.fault_start = time.monotonic()
    blocking(stack, "stop", "redis")
    run.fault_end, restored = start_redis(run.item, appendonly=False)
    run.redis_restored = {"restored": restored}
    run.description = "Redis restarted (counters lost), no operator reload"


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
        status, payload = admin("POST", f"/admin/items/{run.item}/stock/reload")
        run.reloads[answer_key(status, payload)] += 1

    sent = []
    while start + len(sent) * RELOAD_EVERY_S < end:
        at(load, start + len(sent) * RELOAD_EVERY_S)
        sent.append(gevent.spawn(reload_once))
    gevent.joinall(sent)
    run.fault_end = time.monotonic()
    run.description = (f"{len(sent)} reloads, one every {RELOAD_EVERY_S:g} s from {start:.0f} s to {end:.0f} s "
                       "of the load")


def redis_with_aof() -> None:
    """Before the item is set up: the stack's Redis replaced by one with AOF everysec, starting empty."""
    stack("stop", "redis")
    forget_aof()
    stack("start", "redis", env=redis_env(appendonly=True))


def redis_without_aof() -> None:
    """After the run: the stack's normal Redis (no persistence) again, for the scenarios after this one."""
    stack("stop", "redis")
    forget_aof()
    stack("start", "redis", env=redis_env(appendonly=False))


def redis_aof_kill(run: Run) -> None:
    """Redis with AOF everysec killed with SIGKILL and started again from its AOF, half a second before the
    sell-out. A killed process loses nothing the kernel already has, so the AOF is first cut back to its length
    LOST_TAIL_S before the kill, as a crash of the machine could leave it with everysec: Redis comes back with
    the counter of a second ago, higher than baseline − Σ committed. order-api must not sell from it."""
    load, item = run.load, run.item
    kill_at = around_sell_out(load, 0.5)
    at(load, kill_at - LOST_TAIL_S)
    tail = aof_tail()
    synced = tail.stat().st_size
    at(load, kill_at)
    run.fault_start = time.monotonic()
    try:
        before = blocking(redis_counter, item)
    except RedisUnavailable:
        before = None
    blocking(stack, "kill", "redis")
    if aof_tail() == tail:
        at_kill = tail.stat().st_size
        os.truncate(tail, synced)
        cut = f"AOF cut back to its length {LOST_TAIL_S:g} s before ({at_kill} → {synced} bytes)"
    else:  # rewritten meanwhile: cutting the new file at the old length would make no sense
        cut = "AOF rewritten during the last second, not cut"
    run.fault_end, restored = start_redis(item, appendonly=True)
    generation, state = blocking(current_generation, item)
    truth = state.baseline - blocking(committed_units, item, generation)
    run.redis_restored = {"counter_before_kill": before, "restored": restored,
                          "baseline_minus_committed": truth,
                          "stale_by": None if restored is None else restored - truth}
    run.description = f"Redis (AOF everysec) killed with SIGKILL, {cut}, restarted from it"


def signal_component(name: str, sig: int) -> None:
    """Sends a signal to a process the stack started: SIGSTOP freezes it (its clients' connections stay open and
    unanswered, as a stalled server or a partition leaves them), SIGCONT thaws it."""
    os.kill(stack_pids()[name], sig)


def in_doubt_left(item: str) -> int:
    """The item's orders held in doubt in Redis (stock:{item}:in-doubt)."""
    return int(redis_cli("HLEN", f"stock:{{{item}}}:in-doubt").stdout.strip())


def answered_in_doubt(load: Load, since: int) -> int:
    """Orders answered ORDER_OUTCOME_UNKNOWN among the answers after the first `since`."""
    return sum(r.code == "ORDER_OUTCOME_UNKNOWN" for r in load.requests[since:])


def outage_seen(load: Load, since: int) -> bool:
    """Whether an answer after the first `since` tells how a freeze of the database caught order-api's one writer:
    ORDER_OUTCOME_UNKNOWN if in its commit; DATABASE_UNAVAILABLE if before it (that batch is not written, and the
    breaker then refuses every order before it takes stock, so no commit of this freeze is left to catch)."""
    return any(r.code in ("ORDER_OUTCOME_UNKNOWN", "DATABASE_UNAVAILABLE") for r in load.requests[since:])


def wait_cooperatively(predicate, timeout_s: float) -> bool:
    """Polls `predicate` without stopping the load; whether it held before the deadline."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        gevent.sleep(0.05)
    return True


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
            blocking(stack, "kill", "order-api")
            blocking(signal_component, "mariadb", signal.SIGCONT)
            frozen = False
            load.resume()
            blocking(stack, "start", "order-api")
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
    generation = run.record_generation(set_stock(run.item, quantity, run.per_user_limit))
    run.fault_end = time.monotonic()
    run.description = f"stock reset to {quantity} at {reset_at:.0f} s of the load (generation {generation})"


def entry_flood(run: Run) -> None:
    """Throwaway user ids enter the item's waiting room from FLOOD_CLIENTS connections, as fast as they are
    answered, from 10 % to 60 % of the run, and never order: the room's bound refuses what is past it."""
    load = run.load
    at(load, 0.1 * load.duration_s)
    run.fault_start = time.monotonic()
    end = load.started + 0.6 * load.duration_s
    answers: Counter = Counter()

    def bot(k: int) -> None:
        client = HTTPClient.from_url(URL(API), concurrency=1, connection_timeout=2, network_timeout=10)
        n = 0
        while time.monotonic() < end:
            body = json.dumps({"itemCode": run.item, "userId": f"bot-{k}-{n}", "quantity": 1})
            n += 1
            try:
                r = client.post(TICKETS, body=body, headers=JSON_HEADERS)
                answers[answer_key(r.status_code, parse_json(r.read()))] += 1
            except Exception as e:
                answers[f"-1 {type(e).__name__}"] += 1
        client.close()

    gevent.joinall([gevent.spawn(bot, k) for k in range(FLOOD_CLIENTS)])
    run.fault_end = time.monotonic()
    run.description = (f"{sum(answers.values())} entries under throwaway ids from {FLOOD_CLIENTS} connections ("
                       + ", ".join(f"{k}: {v}" for k, v in sorted(answers.items())) + ")")


def hoards_expire_in_crowd(run: Run) -> None:
    """Tokens for a fifth of the stock taken at the start under throwaway ids and never redeemed; the crowd buys the
    rest and is then answered SOLD_OUT, from each order-api's memory of the sell-out; the holds expire
    (TOKEN_SCENARIO_ENV) and their units come back while the crowd still asks: they must be sold to it, none left
    unsold (issue 28: a memory of the sell-out must never undersell)."""
    load = run.load
    hoard = max(HOARD_UNITS, run.generations[max(run.generations)].baseline // 5)
    at(load, 0.02 * load.duration_s)
    run.fault_start = time.monotonic()
    client = HTTPClient.from_url(URL(API), concurrency=1, connection_timeout=2, network_timeout=10)
    held, answers = 0, Counter()
    while held < hoard:
        units = min(HOARD_UNITS, hoard - held)
        body = json.dumps({"itemCode": run.item, "userId": f"bot-hoard-{sum(answers.values())}", "quantity": units})
        r = client.post(TOKENS, body=body, headers=JSON_HEADERS)
        answers[answer_key(r.status_code, parse_json(r.read()))] += 1
        if r.status_code == 201:
            held += units
        elif r.status_code == 409:
            break
    client.close()
    # the units come back after the token's time to live and its grace, at the next sweep
    run.fault_end = time.monotonic() + TOKEN_HELD_S
    run.figures = {"hoarded_units": held, "units_back_at_s": round(run.fault_end - load.started, 2)}
    issued = ", ".join(f"{k}: {v}" for k, v in sorted(answers.items()))
    run.description = (f"tokens for {held} units never redeemed ({issued}), their holds expiring "
                       f"{TOKEN_HELD_S:.0f} s later, during the crowd")
    gevent.sleep(max(0.0, run.fault_end - time.monotonic()))
    sold_out = [r.answered_at for r in load.requests if r.code == "SOLD_OUT"]
    run.figures["sold_out_before_back"] = bool(sold_out) and min(sold_out) < run.fault_end


def order_api_with(env: dict[str, str]):
    """order-api restarted with these settings, for one scenario."""
    def restart() -> None:
        stack("stop", "order-api")
        stack("start", "order-api", env={**{k: v for k, v in os.environ.items() if k not in QUEUE_SCENARIO_ENV},
                                         **env})
    return restart


# the entry-flood scenario's order-api: admissions of 10 s instead of 30, so that the rounds in which bots' unused
# admissions hold the units fit in the run, and one waiting ticket per unit left instead of ten, so that the room's
# bound binds under the flood one client process sends on two shared cores (~25 entries a second was seen)
QUEUE_SCENARIO_ENV = {"FLASHSTOCK_QUEUE_ADMISSION_TTL": "10s", "FLASHSTOCK_QUEUE_WAITING_PER_UNIT": "1"}
# the units-back scenario's order-api: tokens that expire within the run, after the crowd has sold the rest out
TOKEN_SCENARIO_ENV = {"FLASHSTOCK_TOKEN_TTL": "10s", "FLASHSTOCK_TOKEN_GRACE": "1s"}
TOKEN_HELD_S = 12.0  # TTL, grace and a sweep (1 s)
HOARD_UNITS = 2


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
# its own Redis faults (flashbench/cluster.py)
SINGLE_ONLY = frozenset({"redis-restart", "redis-aof-kill", "per-user-limit", "entry-flood", "units-back-in-crowd"})


# ---------------------------------------------------------------- judging

@dataclass
class Outcome:
    scenario: str
    faults: str
    stock: dict = field(default_factory=dict)  # generation → baseline
    per_user_limit: int | None = None
    fault_window_s: list | None = None  # [start, end] after the load started
    sold_out_at_s: float | None = None  # the first SOLD_OUT, after the load started
    sent: int = 0
    ok: int = 0
    statuses: dict = field(default_factory=dict)
    oversold: int = 0
    lost: int = 0
    applied_twice: int = 0
    limit_exceeded: int = 0
    refused_committed: int = 0
    stranded: int | None = None
    surplus: int | None = None
    unsold: int | None = None  # a waiting room's units no real user bought (entry-flood must sell them all)
    committed_unanswered: int = 0
    reloads: dict = field(default_factory=dict)
    redis_restored: dict = field(default_factory=dict)
    recovery_s: float | None = None
    first_ok_after_fault_s: float | None = None
    slowest_error_ms: float | None = None
    in_doubt: dict = field(default_factory=dict)
    reconciliation_exact: bool = False
    findings: list = field(default_factory=list)
    notes: str = ""
    figures: dict = field(default_factory=dict)  # what a cluster fault measured
    latency_ms: dict = field(default_factory=dict)  # accepted → applied, by when the order was committed
    dead_rows: int | None = None  # the item's outbox rows the relay gave up on (DEAD)

    @property
    def passed(self) -> bool:
        return (self.oversold == 0 and self.lost == 0 and self.applied_twice == 0 and self.limit_exceeded == 0
                and self.refused_committed == 0 and self.reconciliation_exact and not self.unsold
                and not self.dead_rows)


def describe_answers(outcome: Outcome, run: Run) -> None:
    """What the clients saw: answers by status, the first sell-out, the slowest refusal, the first 200 after
    the fault (by when it was answered: a request sent during the fault may be the first to succeed after it)."""
    requests, started = run.load.requests, run.load.started
    outcome.sent = len(requests)
    outcome.ok = sum(r.status == 200 for r in requests)
    outcome.statuses = dict(sorted(Counter(str(r.status) + (f" {r.code}" if r.code else "")
                                           for r in requests).items()))
    sold_out = [r.sent_at for r in requests if r.code == "SOLD_OUT"]
    outcome.sold_out_at_s = round(min(sold_out) - started, 2) if sold_out else None
    errors = [r.answered_at - r.sent_at for r in requests if r.status not in (200, -1)]
    outcome.slowest_error_ms = round(max(errors) * 1000, 1) if errors else None
    if run.fault_start is not None and run.fault_end is not None:
        outcome.fault_window_s = [round(run.fault_start - started, 2), round(run.fault_end - started, 2)]
        after = [r.answered_at for r in requests if r.status == 200 and r.answered_at >= run.fault_end]
        outcome.first_ok_after_fault_s = round(min(after) - run.fault_end, 2) if after else None


def judge(outcome: Outcome, run: Run, scenario: Scenario, out: Path) -> None:
    item = run.item
    generation, state = current_generation(item)
    run.generations.setdefault(generation, state)
    committed = int(sql(f"SELECT COUNT(*) FROM orders.purchase_order WHERE item_code = '{item}' "
                        f"AND generation = {generation}")[0][0])
    fault_end = run.fault_end or time.monotonic()

    def applied_all() -> bool:
        level = stock_item(item)
        return level.get("generation") == generation and level.get("eventsApplied", -1) >= committed

    try:
        caught_up = wait_until(applied_all, 180, "the stock database to catch up", interval_s=0.2)
        outcome.recovery_s = round(max(0.0, caught_up - fault_end), 2)
    except TimeoutError as e:
        outcome.notes += str(e) + "; "

    rec = subprocess.run([str(RECONCILE), item, "--wait", "120", "--out", str(out)], capture_output=True, text=True)
    # the history is judged after the reconciliation's wait for the drain, and before any repair of Redis, so
    # that stranded units are the ones the run left
    orders = committed_orders(item)
    verdict = history.check(history.History(
        requests=run.load.judged_requests(orders), orders=orders, applied=applied_orders(item),
        generations=run.generations, current_generation=generation, redis_counter=redis_counter(item),
        stock_level=stock_level(item)))
    for name in ("oversold", "lost", "applied_twice", "limit_exceeded", "refused_committed", "stranded", "surplus",
                 "committed_unanswered"):
        setattr(outcome, name, getattr(verdict, name))
    outcome.findings = verdict.findings[:FINDINGS_IN_OUTCOME]
    (out / "findings.txt").write_text("".join(f + "\n" for f in verdict.findings) or "nothing found\n")
    outcome.stock = {g: run.generations[g].baseline for g in sorted(run.generations)}
    outcome.latency_ms = accepted_to_applied(item, run)
    outcome.dead_rows = dead_rows(item)
    if outcome.dead_rows:
        outcome.notes += f"{outcome.dead_rows} outbox rows DEAD; "
    if scenario.gate in ("queue", "token") and run.label is None:
        # bots never order: every unit must have gone to a real user, none left unsold
        real = sum(o.units for o in orders.values() if o.generation == generation and not o.user_id.startswith("bot-"))
        outcome.unsold = run.generations[generation].baseline - real
        if outcome.unsold:
            outcome.notes += f"{outcome.unsold} units not sold to real users; "

    if rec.returncode != 0 and scenario.repair_redis:
        outcome.notes += "drift found by reconciliation: " + " ".join(
            line for line in rec.stderr.splitlines() if "FAILED" in line) + "; repaired with --repair-redis; "
        rec = subprocess.run([str(RECONCILE), item, "--wait", "60", "--repair-redis", "--out", str(out)],
                             capture_output=True, text=True)
    outcome.reconciliation_exact = rec.returncode == 0
    if rec.returncode != 0:
        outcome.notes += "reconciliation: " + " ".join(l for l in rec.stderr.splitlines() if "FAILED" in l) + "; "
    if not verdict.passed:
        outcome.notes += "; ".join(verdict.findings[:3]) + "; "


def percentiles(values: list[float]) -> dict:
    if not values:
        return {}
    values = sorted(values)
    pick = lambda q: round(values[min(len(values) - 1, int(q * len(values)))], 1)  # noqa: E731
    return {"orders": len(values), "p50": pick(0.5), "p99": pick(0.99), "max": round(values[-1], 1)}


def accepted_to_applied(item: str, run: Run) -> dict:
    """Milliseconds from an order's commit (purchase_order.created_at) to its deduction's application in the stock
    database (processed_event.processed_at), by when it was committed: before, during and after the fault."""
    rows = sql("SET time_zone = '+00:00'; SELECT UNIX_TIMESTAMP(o.created_at), "
               "TIMESTAMPDIFF(MICROSECOND, o.created_at, p.processed_at) / 1000 FROM orders.purchase_order o "
               f"JOIN stock.processed_event p ON p.event_id = o.event_id WHERE o.item_code = '{item}'")
    if run.fault_start is None or run.fault_end is None:
        return {"all": percentiles([float(ms) for _, ms in rows])}
    # the fault's window on the wall clock the database stamps with
    offset = time.time() - time.monotonic()
    start, end = run.fault_start + offset, run.fault_end + offset
    phases: dict[str, list[float]] = {"before": [], "during": [], "after": []}
    for committed, ms in rows:
        at_s = float(committed)
        phases["before" if at_s < start else "during" if at_s <= end else "after"].append(float(ms))
    return {phase: percentiles(values) for phase, values in phases.items() if values}


def dead_rows(item: str) -> int:
    (n,), = sql("SELECT COUNT(*) FROM orders.outbox_event e JOIN orders.purchase_order o ON o.event_id = e.event_id "
                f"WHERE o.item_code = '{item}' AND e.status = 'DEAD'")
    return int(n)


IN_DOUBT_RESULTS = ("committed", "given_back", "recounted")


def actuator_metric(name: str, tag: str | None = None) -> float | None:
    """One of order-api's meters, from its actuator; None when it does not answer."""
    import requests
    try:
        r = requests.get(f"{API}/actuator/metrics/{name}", params={"tag": tag} if tag else None, timeout=5)
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


ANSWER_COLUMNS = ["started_s", "answered_s", "status", "code", "latency_ms", "order_code", "units", "user_id",
                  "idempotency_key"]


def write_answers(load: Load, path: Path) -> None:
    """Every request; times in seconds after the load started, as the suite's other figures."""
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ANSWER_COLUMNS)
        for r in sorted(load.requests, key=lambda r: r.sent_at):
            w.writerow([f"{r.sent_at - load.started:.3f}", f"{r.answered_at - load.started:.3f}", r.status,
                        r.code or "", f"{(r.answered_at - r.sent_at) * 1000:.1f}", r.order_code or "", r.units,
                        r.user_id, r.idempotency_key or ""])


def default_stock(rate: float, duration_s: float, share: float) -> int:
    """`share` of the units the load asks for (rate × duration × mean units)."""
    return max(1, round(share * rate * duration_s * MEAN_UNITS))


@dataclass(frozen=True)
class SideItem:
    """An item sold beside the scenario's own on the cluster topology, on the same Redis shard, so that one sale
    puts every gate and the per-user limit through each fault."""
    label: str
    gate: str
    per_user_limit: int | None
    rate_share: float  # of --rate (and of the stock)


SIDE_ITEMS = (SideItem("per-user limit", "redis", PER_USER_LIMIT, 0.2), SideItem("token gate", "token", None, 0.1),
              SideItem("waiting room", "queue", None, 0.05))
LOADS = {"redis": Load, "queue": QueueLoad, "token": TokenLoad}


def item_name(name: str, near: str | None) -> str:
    """A fresh item code for the scenario; on the cluster topology one on the same shard as `near`, if given."""
    while True:
        item = f"fault-{name}-{uuid.uuid4().hex[:6]}"
        if near is None or TOPOLOGY != "cluster" or same_shard(item, near):
            return item


def same_shard(item: str, other: str) -> bool:
    from flashbench import cluster
    return cluster.slot_owner(cluster.item_slot(item)) == cluster.slot_owner(cluster.item_slot(other))


def run_scenario(name: str, rate: float, duration_s: float, stock: int, out: Path) -> list[Outcome]:
    """Runs one scenario; its outcome, and on the cluster topology one per side item of the sale too."""
    scenario = SCENARIOS[name]
    duration_s *= scenario.duration_factor
    # the stock keeps its share of the units asked over a longer load, unless the scenario sets its own share
    stock = (default_stock(rate, duration_s, scenario.stock_share) if scenario.stock_share is not None
             else round(stock * scenario.duration_factor))
    plans = [SideItem("", scenario.gate, scenario.per_user_limit, scenario.rate_share)]
    if TOPOLOGY == "cluster" and scenario.gate == "redis":
        plans += SIDE_ITEMS
    runs: list[Run] = []
    stocks: list[int] = []
    for plan in plans:
        item = item_name(name, runs[0].item if runs else None)
        item_rate, item_stock = rate * plan.rate_share, max(1, round(stock * plan.rate_share))
        limit = plan.per_user_limit
        draws = draw_orders(int(item_rate * duration_s), user_pool(item_stock, limit) if limit else None, seed=item)
        load = LOADS[plan.gate](item, item_rate, draws)
        runs.append(Run(name, item, load, stock_share=item_stock / sum(d.units for d in draws),
                        per_user_limit=limit, gate=plan.gate, label=plan.label or None))
        stocks.append(item_stock)
    run = runs[0]
    run.sides = runs[1:]
    outcomes = []
    try:
        if TOPOLOGY == "cluster":
            from flashbench import cluster
            cluster.ensure_whole()
        if scenario.setup:
            scenario.setup()
        for r, item_stock in zip(runs, stocks):
            r.record_generation(set_stock(r.item, item_stock, r.per_user_limit, gate=r.gate))
        for r in runs:
            baseline = r.generations[max(r.generations)].baseline
            # the stock database follows the reset through Kafka; wait for it so the run starts from a known state
            wait_until(lambda: stock_item(r.item).get("baseline") == baseline, 30,
                       f"the reset of {r.item} to reach the stock database")
            sold_out_at = ideal_sell_out(r.load.draws, baseline, r.per_user_limit)
            r.load.sell_out_s = (sold_out_at if sold_out_at is not None else len(r.load.draws)) / r.load.rate
        if scenario.prepare:
            scenario.prepare(run)
        settled_before = in_doubt_settled()
        for r in runs:
            print(f"[faults] {name}{' · ' + r.label if r.label else ''}: {r.load.rate:g}/s for {duration_s:g} s on "
                  f"{r.item} ({r.gate} gate), stock {r.generations[max(r.generations)].baseline} of "
                  f"{sum(d.units for d in r.load.draws)} units asked"
                  f"{f', limit {r.per_user_limit} per user' if r.per_user_limit else ''}; it would run out at "
                  f"{r.load.sell_out_s:.1f} s", file=sys.stderr, flush=True)
        runners = [r.load.run() for r in runs]
        gevent.sleep(0.1)
        try:
            scenario.inject(run)
        except BaseException:
            gevent.killall(runners)  # or their orders would go on into the next scenario
            raise
        gevent.joinall(runners)
        for r in runs:
            if r is not run:
                r.fault_start, r.fault_end, r.description = run.fault_start, run.fault_end, "the same faults"
            outcome = Outcome(name + (f" · {r.label}" if r.label else ""), r.description, per_user_limit=r.per_user_limit,
                              reloads=dict(r.reloads), redis_restored=r.redis_restored, figures=dict(r.figures))
            describe_answers(outcome, r)
            scenario_out = out / name / (r.label.replace(" ", "-") if r.label else "")
            scenario_out.mkdir(parents=True, exist_ok=True)
            write_answers(r.load, scenario_out / "answers.csv")
            judge(outcome, r, scenario, scenario_out)
            outcomes.append(outcome)
        outcomes[0].in_doubt = settled_during(settled_before)
    finally:
        if scenario.teardown:
            scenario.teardown()
    for outcome in outcomes:
        print(f"[faults] {outcome.scenario}: {'PASS' if outcome.passed else 'FAIL'} {asdict(outcome)}",
              file=sys.stderr, flush=True)
    return outcomes


# ---------------------------------------------------------------- the table

def cell(value) -> str:
    return "—" if value is None else str(value)


def table(outcomes: list[Outcome]) -> str:
    lines = ["| scenario | faults injected | stock (per generation) | fault window (s) | first SOLD_OUT (s) | "
             "requests sent | 200s | oversold | lost | applied twice | limit exceeded | refused but committed | "
             "stranded units | reloads 200 / 503 | time to recover (s) | first 200 after fault (s) | "
             "slowest error answer (ms) | other answers | in doubt, then committed / given back | verdict |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|"]
    for o in outcomes:
        others = ", ".join(f"{k}: {v}" for k, v in sorted(o.statuses.items()) if k != "200") or "none"
        stock = ", ".join(f"{g}: {b}" for g, b in o.stock.items()) or "—"
        if o.per_user_limit:
            stock += f" (limit {o.per_user_limit} per user)"
        window = "–".join(f"{t:g}" for t in o.fault_window_s) if o.fault_window_s else "—"
        reloads = (f"{o.reloads.get('200', 0)} / {o.reloads.get('503 STOCK_RELOADING', 0)}"
                   + "".join(f", {k}: {v}" for k, v in sorted(o.reloads.items())
                             if k not in ("200", "503 STOCK_RELOADING"))) if o.reloads else "—"
        lines.append(
            f"| {o.scenario} | {o.faults} | {stock} | {window} | {cell(o.sold_out_at_s)} | {o.sent} | {o.ok} "
            f"| {o.oversold} | {o.lost} | {o.applied_twice} | {o.limit_exceeded} | {o.refused_committed} "
            f"| {cell(o.stranded)} | {reloads} | {cell(o.recovery_s)} | {cell(o.first_ok_after_fault_s)} "
            f"| {cell(o.slowest_error_ms)} | {others} "
            f"| {o.in_doubt.get('committed', 0)} / {o.in_doubt.get('given_back', 0)} "
            f"| {'PASS' if o.passed else 'FAIL: ' + o.notes} |")
    return "\n".join(lines)


def restored_notes(outcomes: list[Outcome]) -> str:
    """What the Redis restarts came back with: the counter as restored, against the truth at that moment."""
    lines = []
    for o in outcomes:
        r = o.redis_restored
        if "baseline_minus_committed" in r:
            stale = r["stale_by"]
            verdict = ("stale: higher than the truth" if stale and stale > 0 else "not higher than the truth")
            lines.append(f"- {o.scenario}: Redis came back with counter {cell(r['restored'])} (it held "
                         f"{cell(r['counter_before_kill'])} just before the kill); baseline − Σ committed was "
                         f"{r['baseline_minus_committed']} just after: {verdict}"
                         + (f" by {stale} units" if stale else ""))
        elif r:
            lines.append(f"- {o.scenario}: Redis came back with counter {cell(r.get('restored'))}; first 200 "
                         f"{cell(o.first_ok_after_fault_s)} s after it answered again")
    return "\n".join(lines)


def latency_cell(figures: dict) -> str:
    return f"{figures['p50']:g} / {figures['p99']:g} / {figures['max']:g} ({figures['orders']})" if figures else "—"


def cluster_notes(outcomes: list[Outcome]) -> str:
    """What the cluster faults measured (promotions, gaps in selling, leaders killed), and every item's time from
    commit to application in the stock database before, during and after its fault."""
    lines = []
    for o in outcomes:
        if o.figures:
            gap = o.figures.get("selling_gap_s")
            target = (f" (target ≤ {SELLING_GAP_TARGET_S:g} s: {'met' if gap <= SELLING_GAP_TARGET_S else 'MISSED'})"
                      if gap is not None else "")
            lines.append(f"- {o.scenario}: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in o.figures.items())
                         + target)
    rows = [f"| {o.scenario} | " + " | ".join(latency_cell(o.latency_ms.get(phase, {}))
                                               for phase in ("before", "during", "after")) + " |"
            for o in outcomes if o.latency_ms]
    if rows:
        lines += ["", "Accepted → applied (commit in the orders database → deduction applied in the stock database), "
                  "ms, p50 / p99 / max (orders), by when the order was committed:", "",
                  "| scenario · item | before the fault | during | after |", "|---|---|---|---|", *rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/faults", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topology", choices=("single", "cluster"),
                   help="the stack's topology (default: what `scripts/stack topology` says it runs)")
    p.add_argument("--scenarios", help="comma-separated (default: every scenario of the topology), of: "
                   + ", ".join(SCENARIOS) + "; on the cluster topology also: redis-primary-kill, "
                   "redis-primary-rejoin, slot-migration, broker-leader-kill, brokers-down, and not: "
                   + ", ".join(sorted(SINGLE_ONLY)))
    p.add_argument("--rate", type=float, default=300.0, help="orders per second during each scenario")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of load per scenario")
    p.add_argument("--stock", type=int, help="the item's stock (default: --stock-share of the units asked)")
    p.add_argument("--stock-share", type=float, default=STOCK_SHARE,
                   help=f"the stock as a share of the units the load asks for (rate × duration × {MEAN_UNITS:g} "
                        "units); default %(default)s")
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    known, default = dict(SCENARIOS), list(SCENARIOS)
    if configure_topology(a.topology) == "cluster":
        from flashbench import cluster
        SCENARIOS.update(cluster.SCENARIOS)
        known, default = {k: v for k, v in SCENARIOS.items() if k not in SINGLE_ONLY}, cluster.DEFAULT
    names = a.scenarios.split(",") if a.scenarios else default
    unknown = [n for n in names if n not in known]
    if unknown:
        p.error(f"unknown scenarios {', '.join(unknown)} on the {TOPOLOGY} topology; known: {', '.join(known)}")
    stock = a.stock or default_stock(a.rate, a.duration, a.stock_share)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or ROOT / "results" / f"{stamp}-faults"
    out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for name in names:
        try:
            outcomes.extend(run_scenario(name, a.rate, a.duration, stock, out))
        except Exception as e:  # one broken scenario must not cost the others' results
            print(f"[faults] {name}: ERROR {e!r}", file=sys.stderr, flush=True)
            traceback.print_exc()
            outcomes.append(Outcome(name, "not completed", notes=f"error: {e!r}"))
    md = table(outcomes)
    restored = restored_notes(outcomes)
    measured = cluster_notes(outcomes) if TOPOLOGY == "cluster" else ""
    (out / "faults.md").write_text(f"# Faults under load, {stamp}\n\n`scripts/faults {' '.join(sys.argv[1:])}`\n\n"
                                   f"{md}\n" + (f"\nRedis restarts:\n\n{restored}\n" if restored else "")
                                   + (f"\nMeasured:\n\n{measured}\n" if measured else ""))
    (out / "faults.json").write_text(json.dumps([asdict(o) for o in outcomes], indent=2))
    print(md)
    if restored:
        print("\n" + restored)
    if measured:
        print("\n" + measured)
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    # run as flashbench.faults, not __main__: flashbench.cluster imports this module and must share its state
    from flashbench import faults as module
    sys.exit(module.main())
