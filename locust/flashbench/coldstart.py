"""The cold phase after a restart: restarts the services, and the moment they report ready sends orders at a
constant rate with vegeta (open model) on a fresh item with ample stock, then reports the latency per window of
the run, so the first seconds, where the JIT still compiles, show apart from the rest (issue 28, target 6).

    scripts/coldstart [--restart services|order-api] [--rps 1000] [--seconds 30] [--window 5] [--runs 3]
                      [--out DIR]

Each run's item is reset before the restart, so nothing but the attack follows readiness. Per run: launch → ready
(an AOT cache's training run, which happens once per build, is timed apart), the warm-up's own line from
order-api's log, the cores the box and the engine kept busy during the attack (the rest is vegeta and whatever
else runs on the box), and per window the requests, answers not 200, p50, p99 and max; then the item's reconciliation.
Writes coldstart.csv and summary.md to --out; vegeta's raw results are not kept.
"""
import argparse
import datetime as dt
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from flashbench import cpu, vegeta
from flashbench.console import log
from flashbench.stockdb import reset_stock
from flashbench.stack import API, RECONCILE, ROOT, STACK, STATE, stack_pids

TRAINED = re.compile(r"(\S+): AOT cache trained in (\d+) s")
WARMUP = re.compile(r"JIT warm-up: .*")


@dataclass(frozen=True)
class Window:
    start_s: int
    end_s: int
    requests: int
    not_200: int
    p50_ms: float
    p99_ms: float
    max_ms: float


def windows(answers: list[vegeta.Answer], window_s: int) -> list[Window]:
    """The answers grouped by when their request was sent, window_s seconds a window from the first request."""
    if not answers:
        return []
    first = min(a.started_ns for a in answers)
    groups: dict[int, list[vegeta.Answer]] = {}
    for a in answers:
        groups.setdefault(int((a.started_ns - first) // (window_s * 10**9)), []).append(a)
    result = []
    for n in sorted(groups):
        latencies = sorted(a.latency_ns for a in groups[n])
        result.append(Window(n * window_s, (n + 1) * window_s, len(latencies),
                             sum(1 for a in groups[n] if a.status != 200),
                             vegeta.percentile(latencies, 50) / 1e6, vegeta.percentile(latencies, 99) / 1e6,
                             latencies[-1] / 1e6))
    return result


def window_cores(samples: list[cpu.Sample], start_s: float, end_s: float) -> dict[str, float]:
    """Cores each process kept busy between two moments (epoch s), from the samples nearest to them."""
    a = min(samples, key=lambda x: abs(x.at - start_s))
    b = min(samples, key=lambda x: abs(x.at - end_s))
    if b.at <= a.at:
        return {}
    return {k: (b.cpu_s[k] - a.cpu_s[k]) / (b.at - a.at) for k in b.cpu_s
            if b.cpu_s[k] is not None and a.cpu_s.get(k) is not None}


def restart(what: str) -> tuple[float, dict[str, int]]:
    """Stops and starts the services (or order-api alone), waiting for readiness; returns launch → ready in seconds
    without any AOT training run, and the training runs' seconds by service."""
    stop, start = ((["services", "down"], ["services", "up"]) if what == "services"
                   else (["stop", "order-api"], ["start", "order-api"]))
    subprocess.run([str(STACK), *stop], check=True, stdout=subprocess.DEVNULL)
    began = time.monotonic()
    done = subprocess.run([str(STACK), *start], check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"scripts/stack {' '.join(start)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    elapsed = time.monotonic() - began
    for line in (done.stdout + done.stderr).splitlines():
        if "AOT" in line:
            log(line)
    trained = {m.group(1): int(m.group(2)) for m in TRAINED.finditer(done.stdout + done.stderr)}
    return elapsed - sum(trained.values()), trained


def busy_cores() -> tuple[float, float]:
    """(CPU seconds the whole box spent busy so far, now): the load beside the stack shows in its difference."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / cpu.TICKS_PER_S, time.monotonic()


def warmup_line() -> str:
    """The warm-up's report in order-api's log (the last one: the log is rewritten at each start)."""
    try:
        found = WARMUP.findall((STATE / "services" / "order-api.log").read_text(errors="replace"))
    except OSError:
        return "—"
    return found[-1] if found else "—"


def run_once(n: int, what: str, rps: float, seconds: float, window_s: int, stock: int, scratch: Path) -> dict:
    item = f"cold-{dt.datetime.now(dt.timezone.utc):%H%M%S}-{n}"
    reset_stock(item, stock)
    log(f"run {n}: restarting {what}, then {rps:g}/s for {seconds:g} s on {item}")
    ready_s, trained = restart(what)
    body = json.dumps({"itemCode": item, "userId": "coldstart", "quantity": 1})
    box_before = busy_cores()
    with cpu.CpuSampler(stack_pids()) as sampler:
        answers = vegeta.attack(f"{API}/order/stock/limit", body, rps, seconds, scratch / f"run-{n}.bin")
    box_after = busy_cores()
    elapsed = box_after[1] - box_before[1]
    box = (box_after[0] - box_before[0]) / elapsed
    first_cpu, last_cpu = sampler.samples[0].cpu_s, sampler.samples[-1].cpu_s
    engine = sum(last_cpu[k] - first_cpu[k] for k in last_cpu
                 if last_cpu[k] is not None and first_cpu.get(k) is not None)
    reconciled = subprocess.run([str(RECONCILE), item, "--wait", "60"], check=False, stdout=subprocess.DEVNULL)
    first_sent = min(a.started_ns for a in answers) / 1e9
    per_window = windows(answers, window_s)
    # the services' and infrastructure's cores per window: which of them the first seconds wait for
    cores = [window_cores(sampler.samples, first_sent + w.start_s, first_sent + w.end_s) for w in per_window]
    run = {"run": n, "item": item, "ready_s": ready_s, "trained_s": trained, "warmup": warmup_line(), "cores": cores,
           "windows": per_window, "all": vegeta.summarize(answers, rps),
           "exact": reconciled.returncode == 0, "box_cores": box, "engine_cores": engine / elapsed}
    first = run["windows"][0]
    log(f"run {n}: ready in {ready_s:.1f} s; first {window_s} s p50 {first.p50_ms:.1f} p99 {first.p99_ms:.1f} ms, "
        f"{first.not_200} not 200; reconciliation {'exact' if run['exact'] else 'FAILED'}")
    return run


def csv_lines(runs: list[dict]) -> list[str]:
    lines = ["run,window_start_s,window_end_s,requests,not_200,p50_ms,p99_ms,max_ms,"
             + ",".join(f"cores_{name}" for name in cpu.ENGINE)]
    for r in runs:
        cores = r.get("cores") or [{}] * len(r["windows"])
        lines += [f"{r['run']},{w.start_s},{w.end_s},{w.requests},{w.not_200},{w.p50_ms:.2f},{w.p99_ms:.2f},"
                  f"{w.max_ms:.2f}," + ",".join(f"{c[name]:.2f}" if name in c else "" for name in cpu.ENGINE)
                  for w, c in zip(r["windows"], cores)]
    return lines


def summary(runs: list[dict], command: str, stamp: str, window_s: int, p99_limit_ms: float) -> list[str]:
    md = [f"# Cold start {stamp}", "", f"`{command}` (vegeta {vegeta.VERSION})", "",
          "| run | launch → ready (s) | AOT training (s) | reconciliation | cores busy during the attack: box / engine "
          "| warm-up (order-api's log) |",
          "|---:|---:|---|---|---|---|"]
    for r in runs:
        trained = ", ".join(f"{k} {v}" for k, v in r["trained_s"].items()) or "—"
        md.append(f"| {r['run']} | {r['ready_s']:.1f} | {trained} | {'exact' if r['exact'] else 'FAILED'} "
                  f"| {r.get('box_cores', 0):.2f} / {r.get('engine_cores', 0):.2f} | {r['warmup']} |")
    md += ["", "Per window from the first request (ms; p50 / p99 / max of each run, then not 200 summed):", "",
           "| window (s) | " + " | ".join(f"run {r['run']}" for r in runs) + " | not 200 |",
           "|---|" + "---:|" * (len(runs) + 1)]
    for i, w in enumerate(runs[0]["windows"]):
        cells = [(f"{r['windows'][i].p50_ms:.1f} / {r['windows'][i].p99_ms:.1f} / {r['windows'][i].max_ms:.0f}"
                  if i < len(r["windows"]) else "—") for r in runs]
        bad = sum(r["windows"][i].not_200 for r in runs if i < len(r["windows"]))
        md.append(f"| {w.start_s}–{w.end_s} | " + " | ".join(cells) + f" | {bad} |")
    first_p99 = [r["windows"][0].p99_ms for r in runs]
    met = all(p <= p99_limit_ms for p in first_p99) and all(r["windows"][0].not_200 == 0 for r in runs)
    md += ["", f"first {window_s} s p99 ≤ {p99_limit_ms:g} ms, every answer 200, in every run: "
               f"{'met' if met else 'FAILED'} ({', '.join(f'{p:.1f}' for p in first_p99)} ms)"]
    return md


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/coldstart", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--restart", choices=("services", "order-api"), default="services",
                   help="what to restart before each run: the three services (default) or order-api alone")
    p.add_argument("--rps", type=float, default=1000.0)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--window", type=int, default=5, help="seconds per window of the report")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--stock", type=int, default=10_000_000)
    p.add_argument("--p99-limit-ms", type=float, default=50.0, help="the first window's p99 target")
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or ROOT / "results" / f"{stamp}-coldstart"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        runs = [run_once(n, a.restart, a.rps, a.seconds, a.window, a.stock, Path(scratch))
                for n in range(1, a.runs + 1)]
    (out / "coldstart.csv").write_text("\n".join(csv_lines(runs)) + "\n")
    md = summary(runs, f"scripts/coldstart {' '.join(sys.argv[1:] if argv is None else argv)}", stamp, a.window,
                 a.p99_limit_ms)
    (out / "summary.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0 if all(r["exact"] for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
