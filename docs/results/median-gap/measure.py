"""Issue 28, target 3: why is the server's median under Locust several times vegeta's at the same rate?

Each phase sends one client's load to a fresh item on the running services (a warm-up of the same client first,
not kept) and records, between its start and its end: when each request was sent (Locust's own start times,
through arrivals_locustfile.py; vegeta's and clumps/main.go's from their results), the client's latencies,
order-api's histograms of the order's whole handling and of its Redis and database steps (the database step
includes the wait for a writer), the group commit's batch size, and each process's CPU and run-queue wait
(/proc/PID/task/*/schedstat: time on a CPU, time runnable but waiting for one).

    PYTHONPATH=locust .venv/bin/python docs/results/median-gap/measure.py --out docs/results/median-gap \
        --phases vegeta,locust,vegeta,locust
"""
import argparse
import csv
import json
import os
import resource
import subprocess
import time
from collections import Counter
from pathlib import Path

import requests

from flashbench import vegeta
from flashbench.bench import latency
from flashbench.stack import API, ROOT, SERVICES, VENV_BIN, stack_pids
from flashbench.stockdb import reset_stock

HERE = Path(__file__).resolve().parent
PATH = "/order/stock/limit"
ORDER_API_PORT = SERVICES["order-api"]
TIMERS = ("flashstock_order_latency_seconds", "flashstock_order_redis_seconds", "flashstock_order_db_seconds")


def sums() -> Counter:
    """order-api's meters other than histogram buckets (a timer's _count and _sum...), each summed over its tags."""
    flat = Counter()
    for line in requests.get(f"{API}/actuator/prometheus", timeout=10).text.splitlines():
        if line and not line.startswith("#") and "_bucket{" not in line:
            series, value = line.rsplit(" ", 1)
            flat[series.partition("{")[0]] += float(value)
    return flat


def schedstat(pid: int) -> tuple[int, int]:
    """(ns on a CPU, ns runnable and waiting for one), summed over the process's live threads."""
    on_cpu = waiting = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "schedstat").read_text().split()
        except OSError:
            continue
        on_cpu += int(fields[0])
        waiting += int(fields[1])
    return on_cpu, waiting


def snapshot() -> dict:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"sums": sums(), "histograms": {t: latency.histogram([ORDER_API_PORT], t, "") for t in TIMERS},
            "sched": {n: schedstat(p) for n, p in stack_pids().items()},
            "client_cpu_s": children.ru_utime + children.ru_stime, "at": time.time()}


def quantile(counts: dict, q: float) -> float | None:
    """The q-quantile in ms of a cumulative histogram's counts by bucket upper bound (s), interpolated in its
    bucket."""
    les = sorted(counts)
    cumulative = [counts[le] for le in les]
    total = cumulative[-1] if cumulative else 0
    if total == 0:
        return None
    rank, lower, below = q * total, 0.0, 0.0
    for le, cum in zip(les, cumulative):
        if cum >= rank:
            upper = le if le != float("inf") else lower
            share = (rank - below) / (cum - below) if cum > below else 1.0
            return (lower + (upper - lower) * share) * 1000
        lower, below = le, cum
    return None


def arrival_figures(starts: list[float], name: str, out: Path) -> dict:
    """How clumped the requests were sent: for each request, how many were sent in the same millisecond."""
    per_ms = Counter(int(t * 1000) for t in starts)
    seen_by_request = sorted(n for n in per_ms.values() for _ in range(n))
    sizes = Counter(per_ms.values())
    with open(out / f"arrivals-{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["requests_sent_in_the_same_ms", "milliseconds", "requests"])
        for size in sorted(sizes):
            w.writerow([size, sizes[size], size * sizes[size]])
    pick = lambda q: seen_by_request[min(int(q * len(seen_by_request)), len(seen_by_request) - 1)]  # noqa: E731
    figures = {"same_ms_p50": pick(0.5), "same_ms_p90": pick(0.9), "same_ms_p99": pick(0.99),
               "alone_share": sizes.get(1, 0) / len(starts)}
    # the same over 5 ms, about one group commit's length: how many orders arrive while one batch is written
    per_5ms = Counter(int(t * 200) for t in starts)
    seen = sorted(n for n in per_5ms.values() for _ in range(n))
    figures.update({"same_5ms_p50": seen[len(seen) // 2], "same_5ms_p90": seen[int(len(seen) * 0.9)]})
    return figures


def run_vegeta(item: str, rate: float, seconds: float, out: Path) -> tuple[list[float], dict, int]:
    body = json.dumps({"itemCode": item, "userId": "median-gap", "quantity": 1})
    answers = vegeta.attack(f"{API}{PATH}", body, rate, seconds, out / "vegeta.bin")
    (out / "vegeta.bin").unlink()
    (out / "vegeta.body").unlink()
    run = vegeta.summarize(answers, rate)
    return [a.started_ns / 1e9 for a in answers], {"p50": run.percentiles_ms["p50"],
                                                   "p99": run.percentiles_ms["p99"]}, run.ok


def run_clumps(item: str, rate: float, seconds: float, out: Path) -> tuple[list[float], dict, int]:
    """clumps/main.go: an open model like vegeta's whose requests leave CLUMP at a time (default 5)."""
    body, results = out / "clumps.body", out / "clumps.csv"
    body.write_text(json.dumps({"itemCode": item, "userId": "median-gap", "quantity": 1}))
    subprocess.run([os.environ.get("CLUMPS_BIN", "/tmp/flashstock-clumps"), "-url", f"{API}{PATH}",
                    "-body", str(body), "-rate", f"{rate:g}", "-clump", os.environ.get("CLUMP", "5"),
                    "-seconds", f"{seconds:g}", "-out", str(results)], check=True)
    answers = vegeta.parse_csv(results.read_text())
    body.unlink()
    results.unlink()
    run = vegeta.summarize(answers, rate)
    return [a.started_ns / 1e9 for a in answers], {"p50": run.percentiles_ms["p50"],
                                                   "p99": run.percentiles_ms["p99"]}, run.ok


def run_locust(item: str, rate: float, seconds: float, out: Path, nice: tuple = ()) -> tuple[list[float], dict, int]:
    arrivals, result = out / "arrivals.txt", out / "result.json"
    users = 100  # the README bench's: ARRIVALS=smooth, 100 users spawned in one second
    env = {**os.environ, "ITEM_CODE": item, "REQUESTS": str(int(rate * seconds)), "TARGET_RPS": str(rate),
           "ARRIVALS": "smooth", "USERS": str(users), "RESULT_FILE": str(result), "ARRIVALS_FILE": str(arrivals),
           "PYTHONPATH": f"{ROOT / 'locust'}:{HERE}"}
    subprocess.run([*nice, str(VENV_BIN / "locust"), "-f", str(HERE / "arrivals_locustfile.py"), "--headless",
                    "--host", API, "-u", str(users), "-r", str(users), "--run-time", f"{int(seconds * 3) + 60}s",
                    "--only-summary", "--loglevel", "WARNING"], env=env, cwd=out, check=True,
                   stdout=subprocess.DEVNULL)
    starts = [float(line) for line in arrivals.read_text().split()]
    figures = json.loads(result.read_text())
    arrivals.unlink()
    result.unlink()
    return starts, {"p50": figures["percentiles_ms"]["50%"], "p99": figures["percentiles_ms"]["99%"]}, \
        figures["statuses"].get("200", 0)


def phase(client: str, item: str, rate: float, seconds: float, out: Path, name: str | None) -> dict | None:
    reset_stock(item, 10_000_000)
    before = snapshot()
    # locust-nice: Locust at the lowest priority, its CPU given way to the engine's, to tell the cost of its bursts
    # from that of its arrivals' shape
    run = {"vegeta": run_vegeta, "locust": run_locust, "clumps": run_clumps,
           "locust-nice": lambda *a: run_locust(*a, nice=("nice", "-n", "19"))}[client]
    starts, latency, ok = run(item, rate, seconds, out)
    after = snapshot()
    if name is None:
        return None
    pb, pa = before["sums"], after["sums"]
    row = {"phase": name, "client": client, "answered_200": ok,
           "achieved_rps": round(len(starts) / (max(starts) - min(starts)), 1),
           "client_p50_ms": latency["p50"], "client_p99_ms": latency["p99"],
           "client_cpu_us_per_order": round((after["client_cpu_s"] - before["client_cpu_s"]) * 1e6 / ok)}
    for timer in TIMERS:
        short = timer.removeprefix("flashstock_order_").removesuffix("_seconds")
        count = pa[timer + "_count"] - pb[timer + "_count"]
        total = pa[timer + "_sum"] - pb[timer + "_sum"]
        row[f"{short}_mean_ms"] = round(total * 1000 / count, 3) if count else None
        counts = latency.since(before["histograms"][timer], after["histograms"][timer]).get("counts", {})
        for q in (0.5, 0.99):
            value = quantile(counts, q)
            row[f"{short}_p{q * 100:g}_ms"] = None if value is None else round(value, 2)
    batches = pa["flashstock_order_batch_size_count"] - pb["flashstock_order_batch_size_count"]
    batched = pa["flashstock_order_batch_size_sum"] - pb["flashstock_order_batch_size_sum"]
    row["batch_mean"] = round(batched / batches, 2) if batches else None
    row.update(arrival_figures(starts, name, out))
    for process in ("order-api", "mariadb", "redis", "outbox-relay", "stock-consumer", "kafka"):
        if process in after["sched"] and process in before["sched"]:
            on_cpu, waiting = (a - b for a, b in zip(after["sched"][process], before["sched"][process]))
            row[f"{process}_cpu_us"] = round(on_cpu / 1000 / ok)
            row[f"{process}_runqueue_us"] = round(waiting / 1000 / ok)
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=HERE)
    p.add_argument("--phases", default="vegeta,locust,vegeta,locust")
    p.add_argument("--rate", type=float, default=1000)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--warm-seconds", type=float, default=30)
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for n, client in enumerate(args.phases.split(","), start=1):
        name = f"{n}-{client}"
        print(f"{time.strftime('%H:%M:%S')} {name}: warm-up {args.warm_seconds:g} s", flush=True)
        phase(client, f"gap-warm-{n}", args.rate, args.warm_seconds, args.out, None)
        print(f"{time.strftime('%H:%M:%S')} {name}: {args.rate:g}/s for {args.seconds:g} s, "
              f"load {os.getloadavg()[0]:.2f}", flush=True)
        rows.append(phase(client, f"gap-{n}", args.rate, args.seconds, args.out, name))
        print(json.dumps(rows[-1]), flush=True)
    with open(args.out / "phases.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
