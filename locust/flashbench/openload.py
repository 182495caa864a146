"""The open-model cross-check: the same orders at a constant arrival rate with oha, whose
--latency-correction measures each request from when it should have been sent, so a stalled server shows
as latency instead of as fewer requests (coordinated omission, which a closed-model Locust run hides).

    scripts/openload [--rps 1000] [--requests 100000] [--item 1234]          one run
    scripts/openload --capacity 1000,2000,3000,4000,5000 [--step-seconds 20]  the capacity search

The capacity search runs each rate in turn on a freshly reset item and reports the highest rate whose p99
stays within --p99-limit-ms with no failure. oha is built from crates.io (`cargo install oha`) on first use.
"""
import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from flashbench.bench import ROOT, SERVICES, log, reset_stock

PERCENTILES = ("p50", "p90", "p95", "p99", "p99.9", "p99.99")


@dataclass
class OpenRun:
    target_rps: float
    requests: int
    achieved_rps: float
    ok: int
    failures: int
    average_ms: float
    max_ms: float
    percentiles_ms: dict

    @property
    def p99_ms(self) -> float:
        return self.percentiles_ms["p99"]


def oha_binary() -> str:
    found = shutil.which("oha") or (Path.home() / ".cargo/bin/oha")
    if Path(found).exists():
        return str(found)
    log("building oha from crates.io (once; a few minutes on 2 cores)")
    subprocess.run(["cargo", "install", "oha", "--locked"], check=True)
    return str(Path.home() / ".cargo/bin/oha")


def parse(result: dict, target_rps: float, requests: int) -> OpenRun:
    statuses = {int(k): v for k, v in (result.get("statusCodeDistribution") or {}).items()}
    errors = sum((result.get("errorDistribution") or {}).values())
    ok = statuses.get(200, 0)
    summary = result["summary"]
    return OpenRun(target_rps=target_rps, requests=requests, achieved_rps=summary["requestsPerSec"], ok=ok,
                   failures=sum(statuses.values()) - ok + errors, average_ms=summary["average"] * 1000,
                   max_ms=summary["slowest"] * 1000,
                   percentiles_ms={p: (result["latencyPercentiles"].get(p) or 0) * 1000 for p in PERCENTILES})


def run_oha(item: str, rps: float, requests: int, connections: int, out_json: Path) -> OpenRun:
    body = json.dumps({"itemCode": item, "userId": "open-model", "quantity": 1})
    cmd = [oha_binary(), "-n", str(requests), "-q", str(rps), "--latency-correction", "-c", str(connections),
           "-m", "POST", "-T", "application/json", "-d", body, "--no-tui", "--output-format", "json",
           f"http://127.0.0.1:{SERVICES['order-api']}/order/stock/limit"]
    log(f"oha: {requests} requests at {rps:g}/s over {connections} connections, latency corrected")
    result = subprocess.run(cmd, check=True, capture_output=True, text=True)
    out_json.write_text(result.stdout)
    return parse(json.loads(result.stdout), rps, requests)


def table(runs: list[OpenRun]) -> str:
    lines = ["| target req/s | achieved req/s | requests | failures | p50 (ms) | p90 | p95 | p99 | p99.9 | p99.99 | max |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        pct = " | ".join(f"{r.percentiles_ms[p]:.1f}" for p in PERCENTILES)
        lines.append(f"| {r.target_rps:g} | {r.achieved_rps:.0f} | {r.requests} | {r.failures} | {pct} | {r.max_ms:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/openload", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rps", type=float, default=1000.0)
    p.add_argument("--requests", type=int, default=100_000)
    p.add_argument("--item", default="1234")
    p.add_argument("--stock", type=int, default=10_000_000)
    p.add_argument("--connections", type=int, default=200, help="oha's connection pool (open model: enough to never wait)")
    p.add_argument("--capacity", help="comma-separated rates to step through")
    p.add_argument("--step-seconds", type=float, default=20.0)
    p.add_argument("--p99-limit-ms", type=float, default=100.0)
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or ROOT / "results" / f"{stamp}-{'capacity' if a.capacity else 'openload'}"
    out.mkdir(parents=True, exist_ok=True)

    rates = [float(r) for r in a.capacity.split(",")] if a.capacity else [a.rps]
    runs = []
    for rate in rates:
        requests = int(rate * a.step_seconds) if a.capacity else a.requests
        reset_stock(a.item, a.stock)
        runs.append(run_oha(a.item, rate, requests, a.connections, out / f"oha-{rate:g}.json"))
        log(f"{rate:g}/s: p99 {runs[-1].p99_ms:.1f} ms, {runs[-1].failures} failures")
    (out / "openload.json").write_text(json.dumps([asdict(r) for r in runs], indent=2))
    md = [f"# Open-model runs {stamp}", "", f"`scripts/openload {' '.join(sys.argv[1:])}`", "", table(runs)]
    if a.capacity:
        good = [r.target_rps for r in runs if r.failures == 0 and r.p99_ms <= a.p99_limit_ms
                and r.achieved_rps >= 0.99 * r.target_rps]
        md += ["", f"capacity (highest rate with p99 ≤ {a.p99_limit_ms:g} ms, 0 failures, ≥ 99 % of the rate "
                   f"achieved): {max(good):g} requests/s" if good else "", "" if good else "no rate met the limit"]
    (out / "openload.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
