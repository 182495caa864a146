"""summary.md's tables, from each run's phases.csv: python3 tables.py > summary-tables.md"""
import csv
from pathlib import Path

ENGINE = ("order-api", "mariadb", "redis", "outbox-relay", "stock-consumer", "kafka")
HERE = Path(__file__).resolve().parent


def fmt(row: dict, key: str, digits: int = 1) -> str:
    value = row.get(key, "")
    return "—" if value in ("", None) else f"{float(value):.{digits}f}"


print("| run | phase | sent/s | client p50 / p99 ms | server p50 / p99 ms | Redis step p50 ms | database step "
      "p50 ms | orders per commit | sent alone in their ms | same 5 ms p50 | engine CPU µs per order | "
      "order-api CPU / run-queue µs per order | client CPU µs per order |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for run in sorted(p.parent for p in HERE.glob("*/phases.csv")):
    for row in csv.DictReader(open(run / "phases.csv")):
        engine = sum(float(row[f"{p}_cpu_us"]) for p in ENGINE)
        print(f"| {run.name} | {row['phase']} | {fmt(row, 'achieved_rps', 0)} | {fmt(row, 'client_p50_ms')} / "
              f"{fmt(row, 'client_p99_ms')} | {fmt(row, 'latency_p50_ms')} / {fmt(row, 'latency_p99_ms')} | "
              f"{fmt(row, 'redis_p50_ms', 2)} | {fmt(row, 'db_p50_ms')} | {fmt(row, 'batch_mean')} | "
              f"{float(row['alone_share']):.0%} | {fmt(row, 'same_5ms_p50', 0)} | {engine:,.0f} | "
              f"{fmt(row, 'order-api_cpu_us', 0)} / {fmt(row, 'order-api_runqueue_us', 0)} | "
              f"{fmt(row, 'client_cpu_us_per_order', 0)} |")
