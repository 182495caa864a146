"""The Redis gate measured while the DB-lock baseline is flooded (issue 16): vegeta offers the Redis gate 1,000
orders/s for 20 s, alone, then again while 10,000 DB-lock orders arrive at 500/s on another item. The engine's
answers and latency must not suffer from the baseline's queue on its row.

    PYTHONPATH=locust .venv/bin/python -m flashbench.dbflood [--out DIR]      (services up)
"""
import argparse
import json
import threading
from pathlib import Path

from flashbench import vegeta
from flashbench.stack import API, ROOT
from flashbench.stockdb import reset_stock

RATE, FLOOD_RATE, SECONDS = 1000, 500, 20


def body(item: str) -> str:
    return json.dumps({"itemCode": item, "userId": "flood", "quantity": 1})


def run(label: str, flood: bool, out: Path) -> dict:
    base = API
    reset_stock("flood-redis", 10_000_000)
    reset_stock("flood-dblock", 10_000_000, "db-lock")
    runs = {}

    def flood_db_lock():
        answers = vegeta.attack(f"{base}/order/stock/limit/db-lock", body("flood-dblock"), FLOOD_RATE, SECONDS,
                                out / f"{label}-db-lock.bin")
        runs["db-lock"] = vegeta.summarize(answers, FLOOD_RATE)

    flooding = threading.Thread(target=flood_db_lock) if flood else None
    if flooding:
        flooding.start()
    answers = vegeta.attack(f"{base}/order/stock/limit", body("flood-redis"), RATE, SECONDS, out / f"{label}-redis.bin")
    runs["redis"] = vegeta.summarize(answers, RATE)
    if flooding:
        flooding.join()
    return runs


def main() -> None:
    p = argparse.ArgumentParser(prog="flashbench.dbflood", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "results" / "dbflood")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    lines = ["| run | endpoint | offered/s | answered 200/s | requests | not 200 | statuses | p50 | p99 | p99.9 | max (ms) |",
             "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for label, flood in (("alone", False), ("with 10,000 DB-lock orders", True)):
        for endpoint, r in sorted(run(label.split()[0], flood, a.out).items(), reverse=True):
            pct = r.percentiles_ms
            lines.append(f"| {label} | {endpoint} | {r.target_rps:g} | {r.achieved_rps:.0f} | {r.requests} | {r.failures} "
                         f"| {r.statuses} | {pct['p50']:.1f} | {pct['p99']:.1f} | {pct['p99.9']:.1f} | {r.max_ms:.1f} |")
    (a.out / "dbflood.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
