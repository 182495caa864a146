"""The spike scenario, like the published k6 tests: N users, one request each, all at the same instant,
against an item with little stock, for both gates (the Redis gate and the SELECT … FOR UPDATE baseline).

    scripts/spike [--users 100,500,1000,2000] [--stock 100] [--repeats 3] [--gates redis,db-lock] [--out DIR]

Every connection is opened before the spike, then every user is released at once; the spike's wall time is
from the release to the last answer. A run is correct only with exactly `stock` answers 200 and the rest
409 SOLD_OUT, no other status. Exits non-zero when any run was not.
"""
import argparse
import csv
import datetime as dt
import json
import os
import statistics
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import gevent
import gevent.event
from geventhttpclient import HTTPClient, URL

ROOT = Path(__file__).resolve().parents[2]
PATHS = {"redis": "/order/stock/limit", "db-lock": "/order/stock/limit/db-lock"}


@dataclass
class SpikeResult:
    gate: str
    users: int
    repeat: int
    item: str
    ok: int
    sold_out: int
    other: int
    wall_s: float
    tps: float
    avg_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float

    @property
    def correct(self) -> bool:
        return self.other == 0 and self.ok + self.sold_out == self.users


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return 0.0
    rank = max(1, int(-(-p * len(sorted_values) // 100)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def reset(base: str, item: str, stock: int, gate: str) -> None:
    client = HTTPClient.from_url(URL(base), concurrency=1)
    body = json.dumps({"quantity": stock, "perUserLimit": None, "gate": gate})
    token = os.environ.get("STOCK_ADMIN_TOKEN", "dev-admin-token")
    r = client.put(f"/admin/items/{item}/stock", body=body,
                   headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    if r.status_code != 200:
        raise SystemExit(f"stock reset of {item} failed: HTTP {r.status_code}: {r.read()[:300]!r}")
    r.read()
    client.close()


def spike(base: str, gate: str, users: int, stock: int, repeat: int) -> SpikeResult:
    item = f"spike-{gate}-{users}-{repeat}-{uuid.uuid4().hex[:6]}"
    reset(base, item, stock, gate)
    url = URL(base)
    clients = [HTTPClient(url.host, url.port, concurrency=1, connection_timeout=10, network_timeout=60)
               for _ in range(users)]
    # open every connection first, so the spike measures the orders, not TCP handshakes
    gevent.joinall([gevent.spawn(c.get, "/actuator/health/liveness") for c in clients], raise_error=True)
    go = gevent.event.Event()
    answers: list[tuple[int, float, bytes]] = []

    def one(client: HTTPClient, n: int) -> None:
        body = json.dumps({"itemCode": item, "userId": f"u{n}-{uuid.uuid4().hex[:8]}", "quantity": 1})
        go.wait()
        start = time.perf_counter()
        try:
            r = client.post(PATHS[gate], body=body, headers={"Content-Type": "application/json"})
            content = r.read()
            answers.append((r.status_code, time.perf_counter() - start, content))
        except Exception as e:  # a transport failure is an answer of its own kind, not a crash of the tool
            answers.append((-1, time.perf_counter() - start, repr(e).encode()))

    workers = [gevent.spawn(one, c, n) for n, c in enumerate(clients)]
    gevent.sleep(0.2)
    released = time.perf_counter()
    go.set()
    gevent.joinall(workers)
    wall = time.perf_counter() - released
    for c in clients:
        c.close()

    latencies = sorted(a[1] * 1000 for a in answers)
    ok = sum(1 for a in answers if a[0] == 200)
    sold_out = sum(1 for a in answers if a[0] == 409 and b"SOLD_OUT" in a[2])
    return SpikeResult(gate, users, repeat, item, ok, sold_out, len(answers) - ok - sold_out, wall,
                       users / wall, statistics.fmean(latencies), percentile(latencies, 95),
                       percentile(latencies, 99), latencies[-1])


def summarize(results: list[SpikeResult]) -> str:
    """Per gate and N: the mean over repeats of TPS, average, p95, p99 and max, and the correctness count."""
    lines = ["| gate | users | runs | correct runs | TPS | avg (ms) | p95 (ms) | p99 (ms) | max (ms) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    keys = sorted({(r.gate, r.users) for r in results}, key=lambda k: (k[0] != "redis", k[1]))
    for gate, users in keys:
        rs = [r for r in results if r.gate == gate and r.users == users]
        mean = lambda f: statistics.fmean(getattr(r, f) for r in rs)
        lines.append(f"| {gate} | {users} | {len(rs)} | {sum(r.correct for r in rs)} | {mean('tps'):.0f} | "
                     f"{mean('avg_ms'):.1f} | {mean('p95_ms'):.1f} | {mean('p99_ms'):.1f} | {mean('max_ms'):.1f} |")
    return "\n".join(lines)


def plot(results: list[SpikeResult], path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for gate, style in (("redis", "o-"), ("db-lock", "s--")):
        users = sorted({r.users for r in results if r.gate == gate})
        if not users:
            continue
        p99 = [statistics.fmean(r.p99_ms for r in results if r.gate == gate and r.users == u) for u in users]
        ax.plot(users, p99, style, label=f"{gate} p99")
    ax.set_xlabel("simultaneous users (one request each, 100 in stock)")
    ax.set_ylabel("p99 response time (ms)")
    ax.set_title("Spike: Redis gate vs SELECT … FOR UPDATE")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/spike", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--users", default="100,500,1000,2000", help="comma-separated user counts")
    p.add_argument("--stock", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gates", default="redis,db-lock")
    p.add_argument("--url", default=os.environ.get("ORDER_API_URL", "http://127.0.0.1:8080"))
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or ROOT / "results" / f"{stamp}-spike"
    out.mkdir(parents=True, exist_ok=True)

    results = []
    for users in (int(u) for u in a.users.split(",")):
        for gate in a.gates.split(","):
            for repeat in range(1, a.repeats + 1):
                r = spike(a.url, gate, users, a.stock, repeat)
                results.append(r)
                print(f"[spike] {gate:8s} users={users:5d} #{repeat}: {r.ok} ok, {r.sold_out} sold out, "
                      f"{r.other} other; {r.tps:.0f} TPS, p99 {r.p99_ms:.1f} ms, max {r.max_ms:.1f} ms"
                      f"{'' if r.correct and r.ok == min(a.stock, users) else '  <-- WRONG'}", file=sys.stderr)
    with (out / "spike.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(asdict(results[0]).keys()))
        w.writeheader()
        w.writerows(asdict(r) for r in results)
    table = summarize(results)
    (out / "spike.md").write_text(f"# Spike {stamp}\n\n`scripts/spike {' '.join(sys.argv[1:])}`\n\n{table}\n")
    plot(results, out / "spike.png")
    print(table)
    wrong = [r for r in results if not r.correct or r.ok != min(a.stock, r.users)]
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
