"""The spike scenario of the first-come-first-served write-ups: N users, all released at the same instant, try
to buy one unit each of an item with little stock, through each of four gates:

- redis:   one request, POST /order/stock/limit (the engine's Lua gate);
- db-lock: one request, POST /order/stock/limit/db-lock (SELECT … FOR UPDATE, the baseline);
- token:   POST /order/stock/tokens (the units are taken, a signed token comes back), then the order with
           `Authorization: Bearer <token>`;
- queue:   POST /order/stock/queue/tickets (a place in the waiting room), polls of the ticket until it is
           admitted or learns the item sold out, then the order with `Queue-Ticket: <ticket>`.

    scripts/spike [--users 100,500,1000,2000] [--stock 100] [--repeats 3] [--gates redis,db-lock,token,queue]
                  [--out DIR]

Every connection is opened before the spike, then every user is released at once. A user's time is the whole
flow, from its first request to its last answer; TPS is users ÷ wall time from the release to the last user's
end (requests/s counts every HTTP request, polls included). A run is correct only when exactly `stock` users
bought, every other user was told SOLD_OUT, nothing else happened, and afterwards the reconciliation report
for the item is exact with `stock` units ordered: the proof is in spike.csv and proof/<item>.json. Exits
non-zero when any run was not correct.
"""
import argparse
import collections
import csv
import datetime as dt
import json
import statistics
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

import gevent
import gevent.event
from geventhttpclient import HTTPClient, URL

from flashbench import admin, reconcile, stack

ORDER = "/order/stock/limit"
DB_LOCK_ORDER = ORDER + "/db-lock"
TOKENS = "/order/stock/tokens"
TICKETS = "/order/stock/queue/tickets"
GATES = ("redis", "db-lock", "token", "queue")
JSON = {"Content-Type": "application/json"}
# how long one user may wait in the waiting room before the tool calls it an error
QUEUE_PATIENCE_S = 300.0


@dataclass
class Flow:
    """What one user's flow ended with: 'ok' (an order), 'sold_out', or an error named by status and code."""
    end: str
    seconds: float
    requests: int


@dataclass
class SpikeResult:
    gate: str
    users: int
    repeat: int
    item: str
    ok: int
    sold_out: int
    errors: int
    requests: int
    wall_s: float
    tps: float
    requests_per_s: float
    avg_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    units_ordered: int = -1
    reconciled: bool = False
    error_kinds: str = ""
    proof: dict = field(default_factory=dict, repr=False)

    def correct(self, stock: int) -> bool:
        return (self.errors == 0 and self.ok == min(stock, self.users) and self.ok + self.sold_out == self.users
                and self.reconciled and self.units_ordered == min(stock, self.users))


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return 0.0
    rank = max(1, int(-(-p * len(sorted_values) // 100)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def _code(status: int, content: bytes) -> str:
    """'SOLD_OUT' for a 409 SOLD_OUT problem, else the status and the problem's code, if it has one."""
    try:
        code = json.loads(content).get("code")
    except (ValueError, AttributeError):
        code = None
    return code if status == 409 and code == "SOLD_OUT" else f"{status} {code or ''}".strip()


def _post(client: HTTPClient, path: str, body: str, headers: dict | None = None) -> tuple[int, bytes]:
    r = client.post(path, body=body, headers={**JSON, **(headers or {})})
    return r.status_code, r.read()


def _get(client: HTTPClient, path: str) -> tuple[int, bytes]:
    r = client.get(path)
    return r.status_code, r.read()


def _ordered(status: int, content: bytes) -> str:
    return "ok" if status == 200 else _code(status, content)


def one_request(path: str):
    def flow(client: HTTPClient, body: str) -> tuple[str, int]:
        return _ordered(*_post(client, path, body)), 1
    return flow


def token_flow(client: HTTPClient, body: str) -> tuple[str, int]:
    status, content = _post(client, TOKENS, body)
    if status not in (200, 201):
        return _code(status, content), 1
    token = json.loads(content)["token"]
    return _ordered(*_post(client, ORDER, body, {"Authorization": f"Bearer {token}"})), 2


def queue_flow(client: HTTPClient, body: str) -> tuple[str, int]:
    status, content = _post(client, TICKETS, body)
    requests = 1
    if status != 201:
        return _code(status, content), requests
    ticket = json.loads(content)
    deadline = time.monotonic() + QUEUE_PATIENCE_S
    while ticket["status"] == "WAITING" and time.monotonic() < deadline:
        gevent.sleep(max(20, ticket.get("pollAfterMillis") or 250) / 1000)
        status, content = _get(client, f"{TICKETS}/{ticket['ticket']}")
        requests += 1
        if status != 200:
            return _code(status, content), requests
        ticket = {**json.loads(content), "ticket": ticket["ticket"]}
    if ticket["status"] == "SOLD_OUT":
        return "SOLD_OUT", requests
    if ticket["status"] != "ADMITTED":
        return f"ticket {ticket['status']}", requests
    answer = _post(client, ORDER, body, {"Queue-Ticket": ticket["ticket"]})
    return _ordered(*answer), requests + 1


FLOWS = {"redis": one_request(ORDER), "db-lock": one_request(DB_LOCK_ORDER), "token": token_flow,
         "queue": queue_flow}


def spike(base: str, gate: str, users: int, stock: int, repeat: int, drain_wait_s: float) -> SpikeResult:
    item = f"spike-{gate}-{users}-{repeat}-{uuid.uuid4().hex[:6]}"
    admin.reset_stock(item, stock, gate=gate, urls=[base])
    url = URL(base)
    clients = [HTTPClient(url.host, url.port, concurrency=1, connection_timeout=10, network_timeout=60)
               for _ in range(users)]
    # open every connection first, so the spike measures the orders, not TCP handshakes
    gevent.joinall([gevent.spawn(c.get, "/actuator/health/liveness") for c in clients], raise_error=True)
    go = gevent.event.Event()
    flows: list[Flow] = []
    run = FLOWS[gate]

    def one(client: HTTPClient, n: int) -> None:
        body = json.dumps({"itemCode": item, "userId": f"u{n}-{uuid.uuid4().hex[:8]}", "quantity": 1})
        go.wait()
        start = time.perf_counter()
        try:
            end, requests = run(client, body)
        except Exception as e:  # a transport failure is an answer of its own kind, not a crash of the tool
            end, requests = f"transport {type(e).__name__}", 1
        flows.append(Flow(end, time.perf_counter() - start, requests))

    workers = [gevent.spawn(one, c, n) for n, c in enumerate(clients)]
    gevent.sleep(0.2)
    released = time.perf_counter()
    go.set()
    gevent.joinall(workers)
    wall = time.perf_counter() - released
    for c in clients:
        c.close()

    latencies = sorted(f.seconds * 1000 for f in flows)
    ends = collections.Counter(f.end for f in flows)
    requests = sum(f.requests for f in flows)
    errors = {end: n for end, n in ends.items() if end not in ("ok", "SOLD_OUT")}
    result = SpikeResult(gate, users, repeat, item, ends["ok"], ends["SOLD_OUT"], sum(errors.values()), requests,
                         wall, users / wall, requests / wall, statistics.fmean(latencies),
                         percentile(latencies, 95), percentile(latencies, 99), latencies[-1],
                         error_kinds="; ".join(f"{k}: {v}" for k, v in sorted(errors.items())))
    prove(base, result, drain_wait_s)
    return result


def prove(base: str, result: SpikeResult, drain_wait_s: float) -> None:
    """The run's proof: once the pipeline drained, the item's report is exact and names the units ordered."""
    report = reconcile.wait_for_drain(base, result.item, drain_wait_s)
    items = report.get("items", [])
    result.proof = report
    result.units_ordered = items[0]["orders"]["quantity"] if items else -1
    result.reconciled = bool(report.get("exact")) and bool(items) and not reconcile.failures(report)


def summarize(results: list[SpikeResult], stock: int) -> str:
    """Per gate and N, in the write-ups' shape: means over the repeats, and the counts of every run."""
    lines = ["| gate | users | runs | exact runs | TPS | requests/s | avg (ms) | p95 (ms) | p99 (ms) | max (ms) "
             "| successes | sold-out answers | errors |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    keys = sorted({(r.gate, r.users) for r in results},
                  key=lambda k: (GATES.index(k[0]) if k[0] in GATES else len(GATES), k[1]))
    for gate, users in keys:
        rs = [r for r in results if r.gate == gate and r.users == users]
        mean = lambda f: statistics.fmean(getattr(r, f) for r in rs)
        total = lambda f: "/".join(str(getattr(r, f)) for r in rs)
        lines.append(f"| {gate} | {users} | {len(rs)} | {sum(r.correct(stock) for r in rs)} | {mean('tps'):.0f} | "
                     f"{mean('requests_per_s'):.0f} | {mean('avg_ms'):.1f} | {mean('p95_ms'):.1f} | "
                     f"{mean('p99_ms'):.1f} | {mean('max_ms'):.1f} | {total('ok')} | {total('sold_out')} | "
                     f"{total('errors')} |")
    return "\n".join(lines)


def plot(results: list[SpikeResult], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (tps_ax, p99_ax) = plt.subplots(1, 2, figsize=(11, 4.5))
    styles = {"redis": "o-", "db-lock": "s--", "token": "^-.", "queue": "d:"}
    for gate in GATES:
        users = sorted({r.users for r in results if r.gate == gate})
        if not users:
            continue
        mean = lambda f, u: statistics.fmean(getattr(r, f) for r in results if r.gate == gate and r.users == u)
        tps_ax.plot(users, [mean("tps", u) for u in users], styles[gate], label=gate)
        p99_ax.plot(users, [mean("p99_ms", u) for u in users], styles[gate], label=gate)
    tps_ax.set_ylabel("users served per second (TPS)")
    p99_ax.set_ylabel("p99 of the whole flow (ms)")
    p99_ax.set_yscale("log")
    for ax in (tps_ax, p99_ax):
        ax.set_xlabel("simultaneous users (100 in stock)")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle("Spike: four ways to sell 100 units to a crowd")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/spike", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", default="100,500,1000,2000", help="comma-separated user counts")
    p.add_argument("--stock", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gates", default=",".join(GATES))
    p.add_argument("--drain-wait", type=float, default=60.0,
                   help="seconds each run's proof may wait for the pipeline to drain")
    p.add_argument("--url", default=stack.API_URL)
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    unknown = set(a.gates.split(",")) - set(GATES)
    if unknown:
        p.error(f"unknown gates {sorted(unknown)}; choose from {','.join(GATES)}")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or stack.ROOT / "results" / f"{stamp}-spike"
    (out / "proof").mkdir(parents=True, exist_ok=True)

    results = []
    for users in (int(u) for u in a.users.split(",")):
        for gate in a.gates.split(","):
            for repeat in range(1, a.repeats + 1):
                r = spike(a.url, gate, users, a.stock, repeat, a.drain_wait)
                results.append(r)
                (out / "proof" / f"{r.item}.json").write_text(json.dumps(r.proof, indent=1))
                print(f"[spike] {gate:8s} users={users:5d} #{repeat}: {r.ok} ok, {r.sold_out} sold out, "
                      f"{r.errors} errors{' (' + r.error_kinds + ')' if r.errors else ''}; {r.tps:.0f} TPS, "
                      f"p99 {r.p99_ms:.1f} ms; {r.units_ordered} ordered, "
                      f"{'reconciled' if r.reconciled else 'NOT reconciled'}"
                      f"{'' if r.correct(a.stock) else '  <-- WRONG'}", file=sys.stderr)
    with (out / "spike.csv").open("w", newline="") as f:
        fields = [k for k in asdict(results[0]) if k != "proof"]
        w = csv.DictWriter(f, fieldnames=fields + ["correct"])
        w.writeheader()
        w.writerows({**{k: v for k, v in asdict(r).items() if k != "proof"}, "correct": r.correct(a.stock)}
                    for r in results)
    table = summarize(results, a.stock)
    (out / "spike.md").write_text(f"# Spike {stamp}\n\n`scripts/spike {' '.join(sys.argv[1:])}`\n\n{table}\n\n"
                                  "successes, sold-out answers and errors are per run, in run order.\n")
    plot(results, out / "spike.png")
    print(table)
    return 0 if all(r.correct(a.stock) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
