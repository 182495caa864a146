"""The open-model cross-check and the capacity curve: orders at a constant arrival rate with vegeta, each
latency measured from when the request was sent, so a stalled server shows as latency and errors instead of
as fewer requests (coordinated omission, which a closed-model Locust run hides).

    scripts/openload [--rps 1000] [--seconds 100] [--item 1234]                 one run
    scripts/openload --capacity 1000,2000,3000,4000,5000 [--step-seconds 20]     the capacity curve
    scripts/openload --overload 3000 [--step-seconds 20]                        twice that capacity, offered

Each rate runs on a freshly reset item; the capacity is the highest rate whose p99 stays within
--p99-limit-ms with every request answered 200. Beside the latency, each rate reports the engine's CPU per
order (from /proc), and the item's reconciliation after the last rate. --overload offers twice the given capacity
and checks that the excess is shed, not queued: at least 90 % of the capacity answered 200, the rest refused
with 503 within --refusal-p99-limit-ms at the 99th percentile, no other failure, and an exact reconciliation.
"""
import argparse
import datetime as dt
import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from flashbench import cpu, vegeta
from flashbench.console import log
from flashbench.stack import RECONCILE, ROOT, TOPOLOGIES, instances, running_topology, stack_pids
from flashbench.stockdb import reset_stock


def run_rate(item: str, rate: float, seconds: float, out: Path, topology: str) -> tuple[vegeta.OpenRun, dict]:
    body = json.dumps({"itemCode": item, "userId": "open-model", "quantity": 1})
    urls = [f"http://127.0.0.1:{port}/order/stock/limit" for port in instances("order-api", topology)]
    log(f"vegeta: {rate:g}/s for {seconds:g} s over {len(urls)} order-api(s)")
    with cpu.CpuSampler(stack_pids()) as sampler:
        answers = vegeta.attack(urls, body, rate, seconds, out / f"vegeta-{rate:g}.bin")
    run = vegeta.summarize(answers, rate)
    # the cluster topology's processes (redis-1..6, order-api-2, ...) summed by role
    costs = cpu.by_role(cpu.per_order_us(sampler.samples[0], sampler.samples[-1], run.ok))
    return run, costs


def cpu_table(rows: list[tuple[vegeta.OpenRun, dict]]) -> str:
    lines = ["| target req/s | " + " | ".join(cpu.ENGINE) + " | engine |", "|---:|" + "---:|" * (len(cpu.ENGINE) + 1)]
    for run, costs in rows:
        figures = [costs.get(n) for n in cpu.ENGINE]
        total = None if None in figures else sum(figures)
        lines.append(f"| {run.target_rps:g} | " + " | ".join("—" if v is None else f"{v:.0f}" for v in figures)
                     + f" | {'—' if total is None else f'{total:.0f}'} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/openload", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rps", type=float, default=1000.0)
    p.add_argument("--seconds", type=float, default=100.0, help="length of the single run")
    p.add_argument("--item", default="1234")
    p.add_argument("--stock", type=int, default=10_000_000)
    p.add_argument("--capacity", help="comma-separated rates to step through")
    p.add_argument("--step-seconds", type=float, default=20.0)
    p.add_argument("--p99-limit-ms", type=float, default=100.0)
    p.add_argument("--overload", type=float, help="the capacity (requests/s); twice it is offered")
    p.add_argument("--refusal-p99-limit-ms", type=float, default=50.0)
    p.add_argument("--topology", choices=TOPOLOGIES,
                   help="single or cluster: the order-apis to spread the load over (default: what scripts/stack runs)")
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    kind = "capacity" if a.capacity else "overload" if a.overload else "openload"
    out = a.out or ROOT / "results" / f"{stamp}-{kind}"
    out.mkdir(parents=True, exist_ok=True)

    topology = a.topology or running_topology()
    rates = [float(r) for r in a.capacity.split(",")] if a.capacity else [2 * a.overload] if a.overload else [a.rps]
    rows = []
    for rate in rates:
        reset_stock(a.item, a.stock)
        stepped = a.capacity or a.overload
        rows.append(run_rate(a.item, rate, a.step_seconds if stepped else a.seconds, out, topology))
        run = rows[-1][0]
        log(f"{rate:g}/s: {run.achieved_rps:.0f}/s answered 200, p99 {run.p99_ms:.1f} ms, {run.failures} not 200")
    reconciled = subprocess.run([str(RECONCILE), a.item, "--wait", "60", "--out", str(out)], check=False)
    (out / "openload.json").write_text(json.dumps([{**asdict(r), "cpu_us_per_order": c} for r, c in rows], indent=2))
    runs = [r for r, _ in rows]
    md = [f"# Open-model runs {stamp}", "", f"`scripts/openload {' '.join(sys.argv[1:])}` (vegeta {vegeta.VERSION}), {topology} topology",
          "", vegeta.table(runs), "", "CPU µs per order answered 200, by process (/proc, over each rate's run):", "",
          cpu_table(rows), "", f"reconciliation after the last rate: {'exact' if reconciled.returncode == 0 else 'FAILED'}"]
    if a.capacity:
        good = [r.target_rps for r in runs if r.failures == 0 and r.p99_ms <= a.p99_limit_ms
                and r.achieved_rps >= 0.99 * r.target_rps]
        md += ["", f"capacity (highest rate with p99 ≤ {a.p99_limit_ms:g} ms, every request 200, ≥ 99 % of the rate "
                   f"answered): {max(good):g} requests/s" if good else "no rate met the limit"]
    shed = True
    if a.overload:
        failures = overload_failures(runs[0], a.overload, a.refusal_p99_limit_ms)
        shed = not failures
        md += ["", f"overload (twice {a.overload:g}/s offered): " + ("PASS" if shed else "FAIL: " + "; ".join(failures))]
    (out / "openload.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0 if reconciled.returncode == 0 and shed else 1


def overload_failures(run: vegeta.OpenRun, capacity: float, refusal_p99_limit_ms: float) -> list[str]:
    """What of the shedding target a run offered twice the capacity missed; empty when it met it all."""
    failures = []
    if run.achieved_rps < 0.9 * capacity:
        failures.append(f"{run.achieved_rps:.0f}/s answered 200, below 90 % of {capacity:g}")
    if not run.refused:
        failures.append("nothing was refused: the excess queued")
    if run.other_failures:
        failures.append(f"{run.other_failures} answers neither 200 nor 503")
    refused_p99 = run.refused_percentiles_ms["p99"] if run.refused_percentiles_ms else 0.0
    if refused_p99 > refusal_p99_limit_ms:
        failures.append(f"p99 of the refusals {refused_p99:.1f} ms, above {refusal_p99_limit_ms:g}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
