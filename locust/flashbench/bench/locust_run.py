"""The Locust scenario run headless for a benchmark, its progress logged while it runs."""
import json
import os
import subprocess
import time
from pathlib import Path

from flashbench import cpu, report
from flashbench.bench.options import ORDER_PATHS, RunOptions
from flashbench.console import log
from flashbench.polling import PROGRESS_EVERY_S
from flashbench.stack import API, ROOT, VENV_BIN, instances


def locust_progress(history: list[dict], target: int, rps: float, elapsed_s: float) -> str:
    """One line of a running scenario from Locust's history rows: answered / target, the rate so far, the last
    ten seconds' p50/p99 (Locust's own window), failures and the time left at the target rate."""
    if not history:
        return f"0/{target:,} answered, {elapsed_s:.0f} s in"
    last = history[-1]
    done = last["requests"]
    return (f"{done:,}/{target:,} answered ({done / target:.0%}), {done / max(elapsed_s, 1e-9):.0f}/s so far, "
            f"last 10 s p50 {last['p50']:.0f} ms p99 {last['p99']:.0f} ms, {last['failures']} failures, "
            f"~{max(target - done, 0) / rps:.0f} s left")


def run_locust(opts: RunOptions, out: Path, sampler: cpu.CpuSampler) -> tuple[float, float, dict]:
    """Runs the scenario headless, its CPU sampled as the client's; returns (start, end) monotonic times and
    the run's final figures."""
    users = opts.users or (1000 if opts.arrivals == "burst" else 100)
    result_file = out / "result.json"
    env = {**os.environ, "ITEM_CODE": opts.item, "QUANTITY": str(opts.quantity), "REQUESTS": str(opts.requests),
           "TARGET_RPS": str(opts.rps), "ARRIVALS": opts.arrivals, "USERS": str(users),
           "RESULT_FILE": str(result_file), "PYTHONPATH": str(ROOT / "locust"), "ORDER_PATH": ORDER_PATHS[opts.gate],
           "ORDER_API_URLS": ",".join(f"http://127.0.0.1:{p}" for p in instances("order-api", opts.topology))}
    # an upper bound only: the scenario stops by itself after exactly REQUESTS answers
    max_run_s = int(opts.requests / opts.rps * 3) + 60
    spawn_rate = users if opts.arrivals == "burst" else max(users, 1)
    cmd = [str(VENV_BIN / "locust"), "-f", str(ROOT / "locust" / "locustfile.py"), "--headless",
           "--host", API, "-u", str(users), "-r", str(spawn_rate),
           "--run-time", f"{max_run_s}s", "--csv", str(out / "locust"), "--csv-full-history",
           "--html", str(out / "locust.html"), "--only-summary", "--loglevel", "WARNING"]
    log(f"Locust: {opts.requests} requests at {opts.rps:g}/s, {opts.arrivals} arrivals, {users} users")
    start = time.monotonic()
    locust = subprocess.Popen(cmd, env=env, cwd=out)
    sampler.add("locust", locust.pid)
    history_csv = out / "locust_stats_history.csv"
    while True:
        try:
            locust.wait(timeout=PROGRESS_EVERY_S)
            break
        except subprocess.TimeoutExpired:
            history = report.read_history(history_csv) if history_csv.exists() else []
            log(locust_progress(history, opts.requests, opts.rps, time.monotonic() - start))
    end = time.monotonic()
    if not result_file.exists():
        raise SystemExit(f"Locust wrote no {result_file.name}: see its output above")
    return start, end, json.loads(result_file.read_text())
