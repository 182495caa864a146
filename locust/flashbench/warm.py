"""A/B of service settings on warm JVMs: restarts the services with the given environment, warms them with
WARM seconds of orders, then measures MEASURE seconds at RATE (open model, vegeta) while /proc gives each
process's CPU. One line of CPU µs per order by process and one of latency percentiles per variant; the
variants run one after the other in the same session, so their ratios can be compared.

    scripts/warm-measure [--rate 1000] [--warm 40] [--measure 30] [--out DIR] 'label' ['label NAME=VALUE …' …]

e.g. scripts/warm-measure baseline 'no-lettuce-observation MANAGEMENT_OBSERVATIONS_ENABLE_LETTUCE=false'
"""
import argparse
import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from flashbench import cpu, vegeta
from flashbench.console import log
from flashbench.stack import API, ROOT, STACK, stack_pids
from flashbench.stockdb import reset_stock


def measure(label: str, env: dict, rate: float, warm_s: float, measure_s: float, out: Path) -> dict:
    subprocess.run([str(STACK), "services", "down"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([str(STACK), "services", "up"], check=True, stdout=subprocess.DEVNULL, env={**os.environ, **env})
    item = "warm-measure"
    reset_stock(item, 100_000_000)
    url = f"{API}/order/stock/limit"
    body = json.dumps({"itemCode": item, "userId": "warm-measure", "quantity": 1})
    log(f"{label}: warming {warm_s:g} s, then measuring {measure_s:g} s at {rate:g}/s")
    vegeta.attack(url, body, rate, warm_s, out / f"{label}-warm.bin")
    with cpu.CpuSampler(stack_pids()) as sampler:
        run = vegeta.summarize(vegeta.attack(url, body, rate, measure_s, out / f"{label}.bin"), rate)
    costs = cpu.per_order_us(sampler.samples[0], sampler.samples[-1], run.ok)
    engine = sum(costs[n] for n in cpu.ENGINE if costs.get(n) is not None)
    return {"label": label, "env": env, "rate": rate, "ok": run.ok, "not_200": run.failures,
            "percentiles_ms": run.percentiles_ms, "max_ms": run.max_ms, "cpu_us_per_order": costs,
            "engine_us_per_order": engine}


def line(r: dict) -> str:
    costs = " ".join(f"{n} {r['cpu_us_per_order'][n]:.0f}" for n in cpu.ENGINE if r["cpu_us_per_order"].get(n) is not None)
    pct = " ".join(f"{k} {v:.1f}" for k, v in r["percentiles_ms"].items())
    return (f"{r['label']}: engine {r['engine_us_per_order']:.0f} µs/order ({costs}); {r['ok']} × 200, "
            f"{r['not_200']} other; ms: {pct} max {r['max_ms']:.1f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/warm-measure", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("variants", nargs="+", help="'label NAME=VALUE …': a label, then the environment it sets")
    p.add_argument("--rate", type=float, default=1000.0)
    p.add_argument("--warm", type=float, default=40.0, help="seconds of orders before measuring")
    p.add_argument("--measure", type=float, default=30.0)
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or ROOT / "results" / f"{stamp}-warm-measure"
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for variant in a.variants:
        label, *settings = variant.split()
        results.append(measure(label, dict(s.split("=", 1) for s in settings), a.rate, a.warm, a.measure, out))
        print(line(results[-1]), flush=True)
    (out / "warm-measure.json").write_text(json.dumps(results, indent=2))
    (out / "warm-measure.md").write_text(f"# warm-measure {stamp}\n\n`scripts/warm-measure {' '.join(sys.argv[1:])}`"
                                         "\n\n" + "\n".join(f"- {line(r)}" for r in results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
