"""The crowd after a sell-out: vegeta against an item that is sold out, at constant rates, with the CPU each
process of the engine spends per answer (/proc). Every answer should be 409 SOLD_OUT.

    PYTHONPATH=locust .venv/bin/python -m flashbench.soldout --rates 5000,10000,15000 --seconds 20 --out DIR

The item is reset to --units units and sold out with that many orders first. Per rate, DIR gets
soldout-<rate>.csv.gz (one row per request: ms since the first request, status, latency in µs), and the
summary in soldout.md / soldout.json.
"""
import argparse
import gzip
import json
import sys
import tempfile
from pathlib import Path

import requests

from flashbench import cpu, vegeta
from flashbench.console import log
from flashbench.stack import API, stack_pids
from flashbench.stockdb import reset_stock

PROCESSES = ("order-api", "redis", "mariadb", "kafka", "outbox-relay", "stock-consumer")


def sell_out(item: str, units: int) -> None:
    reset_stock(item, units)
    url = f"{API}/order/stock/limit"
    for i in range(units):
        r = requests.post(url, json={"itemCode": item, "userId": f"early-{i}", "quantity": 1}, timeout=10)
        r.raise_for_status()
    r = requests.post(url, json={"itemCode": item, "userId": "late", "quantity": 1}, timeout=10)
    assert r.status_code == 409 and r.json()["code"] == "SOLD_OUT", r.text


def write_csv(answers: list[vegeta.Answer], path: Path) -> None:
    first = min(a.started_ns for a in answers)
    with gzip.open(path, "wt") as f:
        f.write("offset_ms,status,latency_us\n")
        for a in answers:
            f.write(f"{(a.started_ns - first) / 1e6:.3f},{a.status},{a.latency_ns // 1000}\n")


def box_jiffies() -> tuple[int, int]:
    """Busy and total jiffies of the whole machine so far (/proc/stat): the client shares the two cores."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def run_rate(item: str, rate: float, seconds: float, out: Path, work: Path) -> dict:
    body = json.dumps({"itemCode": item, "userId": "crowd", "quantity": 1})
    url = f"{API}/order/stock/limit"
    log(f"vegeta: {rate:g}/s for {seconds:g} s against sold-out {item}")
    busy0, total0 = box_jiffies()
    with cpu.CpuSampler(stack_pids()) as sampler:
        answers = vegeta.attack(url, body, rate, seconds, work / f"soldout-{rate:g}.bin")
    busy1, total1 = box_jiffies()
    write_csv(answers, out / f"soldout-{rate:g}.csv.gz")
    sold_out = [a for a in answers if a.status == 409]
    span_s = (max(a.started_ns + a.latency_ns for a in answers) - min(a.started_ns for a in answers)) / 1e9
    latencies = sorted(a.latency_ns for a in answers)
    first, last = sampler.samples[0], sampler.samples[-1]
    cpu_us = {name: None if first.cpu_s.get(name) is None or last.cpu_s.get(name) is None or not sold_out
              else (last.cpu_s[name] - first.cpu_s[name]) / len(sold_out) * 1e6 for name in PROCESSES}
    statuses: dict[int, int] = {}
    for a in answers:
        statuses[a.status] = statuses.get(a.status, 0) + 1
    return {"target_rps": rate, "requests": len(answers), "sold_out_per_s": len(sold_out) / span_s,
            "statuses": statuses, "percentiles_ms": vegeta.percentiles_ms(latencies),
            "max_ms": latencies[-1] / 1e6, "cpu_us_per_answer": cpu_us,
            "box_busy": (busy1 - busy0) / (total1 - total0)}


def table(rows: list[dict]) -> str:
    lines = ["| offered/s | 409 SOLD_OUT answered/s | other answers | p50 ms | p90 | p99 | p99.9 | max | "
             + " | ".join(f"{p} µs/answer" for p in PROCESSES[:2]) + " | box CPU busy |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        p = r["percentiles_ms"]
        other = r["requests"] - r["statuses"].get(409, 0)
        costs = " | ".join("—" if r["cpu_us_per_answer"][n] is None else f"{r['cpu_us_per_answer'][n]:.1f}"
                           for n in PROCESSES[:2])
        lines.append(f"| {r['target_rps']:g} | {r['sold_out_per_s']:.0f} | {other} | {p['p50']:.1f} | {p['p90']:.1f} "
                     f"| {p['p99']:.1f} | {p['p99.9']:.1f} | {r['max_ms']:.1f} | {costs} | {r['box_busy']:.0%} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="flashbench.soldout", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rates", default="5000,10000,15000")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--item", default="soldout-crowd")
    p.add_argument("--units", type=int, default=10)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    a.out.mkdir(parents=True, exist_ok=True)
    sell_out(a.item, a.units)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for rate in (float(r) for r in a.rates.split(",")):
            rows.append(run_rate(a.item, rate, a.seconds, a.out, Path(work)))
            r = rows[-1]
            log(f"{rate:g}/s: {r['sold_out_per_s']:.0f}/s answered 409, p99 {r['percentiles_ms']['p99']:.1f} ms, "
                f"statuses {r['statuses']}")
    (a.out / "soldout.json").write_text(json.dumps(rows, indent=2))
    md = f"`python -m flashbench.soldout {' '.join(sys.argv[1:] if argv is None else argv)}` (vegeta {vegeta.VERSION})\n\n"
    (a.out / "soldout.md").write_text(md + table(rows) + "\n")
    print(md + table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
