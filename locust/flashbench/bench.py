"""One benchmark run, end to end: stack and services up with the given settings, stock reset, the Locust
scenario headless, the drain measured, the reconciliation run, and a results folder with table and plots.

    scripts/bench [--requests 100000] [--rps 1000] [--arrivals smooth|burst] [--tomcat-threads 200] ...

Exits non-zero when there were failures, the achieved rate fell below 99 % of the target (--min-rate), the
pipeline did not drain, or the reconciliation failed.
"""
import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import requests

from flashbench import admin, cpu, report
from flashbench.stack import (API, CONSUMER, RECONCILE, ROOT, SERVICES, STACK, TOPOLOGIES, VENV_BIN, instances,
                              running_topology, stack_pids)


@dataclass
class ServiceSettings:
    """What a tuning experiment varies; None leaves the service's own default."""
    tomcat_threads: int | None = None
    hikari_pool: int | None = None
    warmup_requests: int | None = None
    virtual_threads: bool | None = None
    lock_mode: str | None = None
    extra_env: dict = field(default_factory=dict)

    def env(self) -> dict:
        env = dict(self.extra_env)
        if self.tomcat_threads is not None:
            env["SERVER_TOMCAT_THREADS_MAX"] = str(self.tomcat_threads)
        if self.hikari_pool is not None:
            env["SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE"] = str(self.hikari_pool)
        if self.warmup_requests is not None:
            env["FLASHSTOCK_WARMUP_ENABLED"] = "true" if self.warmup_requests > 0 else "false"
            env["FLASHSTOCK_WARMUP_REQUESTS"] = str(self.warmup_requests)
        if self.virtual_threads is not None:
            env["SPRING_THREADS_VIRTUAL_ENABLED"] = "true" if self.virtual_threads else "false"
        if self.lock_mode is not None:
            env["FLASHSTOCK_LOCK_MODE"] = self.lock_mode
        return env


@dataclass
class RunOptions:
    name: str = "seed"
    requests: int = 100_000
    rps: float = 1000.0
    arrivals: str = "smooth"
    users: int | None = None
    item: str = "1234"
    topology: str = "single"
    stock: int = 1_000_000
    quantity: int = 1
    gate: str = "redis"
    build: bool = True
    restart: bool = True
    drain_timeout_s: float = 120.0
    pipeline_warmup: int = 30_000
    min_rate: float = 0.99
    out: Path | None = None
    settings: ServiceSettings = field(default_factory=ServiceSettings)
    command: str = "scripts/bench"


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def dashboard_address(env: dict | None = None) -> str:
    """Where to watch a run live. The token rides in the address's fragment, which the browser keeps to itself;
    only the development token is printed, any other is for the user to add."""
    env = os.environ if env is None else env
    url = f"http://127.0.0.1:{env.get('ORDER_API_PORT', '8080')}/dashboard"
    token = env.get("STOCK_ADMIN_TOKEN", admin.DEV_TOKEN)
    return f"{url}#token={admin.DEV_TOKEN}" if token == admin.DEV_TOKEN else f"{url}#token=<your STOCK_ADMIN_TOKEN>"


def prepare_services(opts: RunOptions) -> None:
    subprocess.run([str(STACK), "up", *(["--cluster"] if opts.topology == "cluster" else [])], check=True)
    if opts.build:
        log("building the services")
        subprocess.run([str(ROOT / "mvnw"), "-q", "-B", "-DskipTests", "package"], check=True, cwd=ROOT)
    if opts.restart:
        env = {**os.environ, **opts.settings.env()}
        subprocess.run([str(STACK), "services", "down"], check=True)
        started = time.monotonic()
        subprocess.run([str(STACK), "services", "up"], check=True, env=env)
        log(f"services ready in {time.monotonic() - started:.1f} s with {opts.settings.env() or 'defaults'}")
    log(f"watch the run live: {dashboard_address()}")


ORDER_PATHS = {"redis": "/order/stock/limit", "db-lock": "/order/stock/limit/db-lock"}


def reset_stock(item: str, stock: int, gate: str = "redis") -> None:
    """A new generation of the item (admin.reset_stock), then the stock database's copy of it."""
    admin.reset_stock(item, stock, gate=gate)
    # the stock database follows the reset through Kafka; wait for it so the run starts from a known state
    wait_until(lambda: stock_item(item).get("baseline") == stock and stock_item(item).get("eventsApplied") == 0,
               30, f"stock-consumer to apply the reset of {item}")


def stock_item(item: str) -> dict:
    r = requests.get(f"{CONSUMER}/stock/items/{item}", timeout=5)
    return r.json() if r.status_code == 200 else {}


def rate_verdict(achieved_rps: float, target_rps: float, min_rate: float) -> str | None:
    """What the summary says of the achieved rate; None when it falls short of min_rate × the target."""
    if min_rate <= 0:
        return "not judged"
    if achieved_rps >= min_rate * target_rps:
        return "ok"
    return None


def drain_seconds(last_answer_at: float, last_applied_at: str) -> float:
    """Last answer (epoch seconds, from the locustfile) → the stock database's lastAppliedAt (ISO-8601, UTC):
    both off this machine's clock. Zero when the last order was applied before the last answer arrived."""
    applied = dt.datetime.fromisoformat(last_applied_at.replace("Z", "+00:00")).timestamp()
    return max(0.0, applied - last_answer_at)


def wait_until(predicate, timeout_s: float, what: str, interval_s: float = 0.05, progress=None) -> float:
    """Polls until predicate() holds; returns when it did (monotonic), or raises after the deadline. `progress`,
    when given, is logged every PROGRESS_EVERY_S while it waits."""
    started = time.monotonic()
    deadline, next_progress = started + timeout_s, started + PROGRESS_EVERY_S
    while True:
        if predicate():
            return time.monotonic()
        now = time.monotonic()
        if now >= deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        if progress is not None and now >= next_progress:
            log(f"{progress()}, {now - started:.0f} s of at most {timeout_s:.0f}")
            next_progress = now + PROGRESS_EVERY_S
        time.sleep(interval_s)


PROGRESS_EVERY_S = 5.0


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


def end_to_end_latency(topology: str) -> dict:
    """Order accepted → applied in the stock database: p50/p99/max (ms) from the stock-consumers' histogram
    `flashstock.consumer.event.latency`, which covers everything they applied since they started (the services restart per run)."""
    return percentiles_ms(histogram(instances("stock-consumer", topology), "flashstock_consumer_event_latency_seconds", ""))


def server_histogram(gate: str, topology: str) -> dict:
    """The order endpoint's own latency histogram, as the order-apis measured it (the request's arrival to its
    answer), to tell the server's time from the client's queueing."""
    return histogram(instances("order-api", topology), "flashstock_order_latency_seconds", f'gate="{gate}"')


def histogram(ports: list[int], metric: str, match: str) -> dict:
    """A Prometheus histogram of a service's instances, summed over them and over the series whose labels contain
    `match`: cumulative counts by bucket upper bound (s), and the max; empty when no instance can be read."""
    texts = []
    for port in ports:
        try:
            texts.append(requests.get(f"http://127.0.0.1:{port}/actuator/prometheus", timeout=10).text)
        except requests.RequestException:
            continue
    counts: dict[float, float] = {}
    maximum = 0.0
    for line in "\n".join(texts).splitlines():
        if match not in line:
            continue
        if line.startswith(metric + "_bucket{"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            counts[bound] = counts.get(bound, 0.0) + float(line.rsplit(" ", 1)[1])
        elif line.startswith(metric + "_max{"):
            maximum = max(maximum, float(line.rsplit(" ", 1)[1]))
    return {"counts": counts, "max": maximum} if counts else {}


def since(before: dict, after: dict) -> dict:
    """The observations of a histogram between two readings (its max is the later reading's: a decaying max)."""
    if not after:
        return {}
    earlier = before.get("counts", {})
    return {"counts": {le: n - earlier.get(le, 0.0) for le, n in after["counts"].items()}, "max": after["max"]}


def percentiles_ms(h: dict) -> dict:
    """p50/p99/p99.9 (ms, histogram bucket upper bounds) and max of a histogram."""
    buckets = sorted(h.get("counts", {}).items())
    if not buckets or buckets[-1][1] == 0:
        return {}
    total = buckets[-1][1]

    def upper_bound(q: float) -> float:
        return next(le for le, count in buckets if count >= q * total)

    return {"events": int(total), "p50_ms": upper_bound(0.5) * 1000, "p99_ms": upper_bound(0.99) * 1000,
            "p99.9_ms": upper_bound(0.999) * 1000, "max_ms": h["max"] * 1000}


STATEMENTS = ("Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_set_option")


def db_statements() -> dict[str, int]:
    """MariaDB's global statement counters (SHOW GLOBAL STATUS); empty when it cannot be asked."""
    user, password = os.environ.get("DB_USER", "flashstock"), os.environ.get("DB_PASSWORD", "flashstock")
    names = ",".join(f"'{n}'" for n in STATEMENTS)
    r = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{os.environ.get('MYSQL_PORT', '3306')}",
                        f"-u{user}", f"-p{password}", "-N", "-B", "-e",
                        f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})"], capture_output=True, text=True)
    return {k: int(v) for k, v in (line.split("\t") for line in r.stdout.splitlines())} if r.returncode == 0 else {}


def process_memory() -> dict:
    """Resident and peak resident memory (MiB) of every process the stack started."""
    out = {}
    for name, pid in stack_pids().items():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        out[name] = {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM") if k in fields}
    return out


def service_info() -> dict:
    info = {}
    for name, port in SERVICES.items():  # the first instances: a topology runs one build
        try:
            info[name] = requests.get(f"http://127.0.0.1:{port}/actuator/info", timeout=5).json()
        except (requests.RequestException, ValueError):
            info[name] = {}
    return info


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    stats: report.RunStats


def warm_pipeline(opts: RunOptions, out: Path) -> None:
    """Sends `pipeline_warmup` orders of a separate item through the whole pipeline at the run's rate and waits
    until the stock database applied them: order-api's own warm-up stops at its database, so without this the
    relay, the consumer and the broker would compile their hot paths during the measured run."""
    if opts.pipeline_warmup <= 0:
        return
    out.mkdir(parents=True, exist_ok=True)
    item = f"{opts.item}-warmup"
    warm = dataclasses.replace(opts, item=item, requests=opts.pipeline_warmup, stock=opts.pipeline_warmup * opts.quantity)
    reset_stock(item, warm.stock, opts.gate)
    log(f"warming the pipeline: {opts.pipeline_warmup} orders of {item} (not part of the results)")
    _, _, result = run_locust(warm, out, cpu.CpuSampler({}))
    accepted = result["statuses"].get("200", 0)
    wait_until(lambda: stock_item(item).get("eventsApplied", -1) >= accepted, opts.drain_timeout_s,
               "the stock database to apply the warm-up orders")


def run(opts: RunOptions) -> RunResult:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    # absolute: Locust runs in this folder, and relative paths given to it would nest
    out = (opts.out or ROOT / "results" / f"{stamp}-{opts.name}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    prepare_services(opts)
    warm_pipeline(opts, out / "pipeline-warmup")
    reset_stock(opts.item, opts.stock, opts.gate)

    statements_before, server_before = db_statements(), server_histogram(opts.gate, opts.topology)
    # the whole run's CPU ends when the pipeline has applied the last order, not at the last answer
    with cpu.CpuSampler(stack_pids()) as sampler:
        start, end, result = run_locust(opts, out, sampler)
        accepted = result["statuses"].get("200", 0)
        log(f"Locust done in {end - start:.1f} s: {result['statuses']}")

        drained_ok = True
        try:
            wait_until(lambda: stock_item(opts.item).get("eventsApplied", -1) >= accepted,
                       opts.drain_timeout_s, "the stock database to apply every accepted order",
                       progress=lambda: f"draining: the stock database applied "
                                        f"{stock_item(opts.item).get('eventsApplied', 0):,} of {accepted:,} orders")
            drain_s = drain_seconds(result["last_answer_at"], stock_item(opts.item)["lastAppliedAt"])
        except TimeoutError as e:
            log(str(e))
            drain_s, drained_ok = float("nan"), False
    statements_after, server_after = db_statements(), server_histogram(opts.gate, opts.topology)

    log(f"reconciling {opts.item}: Redis, orders, outbox, Kafka and the stock database (waits up to 60 s to drain)")
    reconcile = subprocess.run([str(RECONCILE), opts.item, "--wait", "60", "--out", str(out)], check=False)

    stats = report.from_result(result)
    history = report.read_history(out / "locust_stats_history.csv")
    plots = report.plot_run(history, out, opts.name)
    costs = cpu_costs(sampler, history, result, out)
    statements = {k: round((statements_after[k] - statements_before[k]) / max(accepted, 1), 2)
                  for k in statements_after if k in statements_before}
    settings = {"options": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(opts).items()},
                "service_env": opts.settings.env(), "services": service_info(), "memory_mib": process_memory(),
                "end_to_end_latency": end_to_end_latency(opts.topology), "server_latency": percentiles_ms(since(server_before, server_after)),
                "cpu_us_per_order": costs, "db_statements_per_order": statements,
                "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
                "date": stamp}
    (out / "settings.json").write_text(json.dumps(settings, indent=2, default=str))

    rate = rate_verdict(stats.achieved_rps, opts.rps, opts.min_rate)
    rate_ok = rate is not None
    verdict_ok = stats.failures == 0 and rate_ok and drained_ok and reconcile.returncode == 0
    summary = [
        f"# {opts.name}: {opts.requests:,} requests at {opts.rps:g}/s ({opts.arrivals} arrivals)",
        "",
        f"- date: {stamp}; machine: {os.cpu_count()} cores, {platform.platform()}; everything, Locust included, on one box",
        f"- command: `{opts.command}`",
        f"- service settings: {opts.settings.env() or 'defaults'}",
        f"- pipeline warmed before the run with {opts.pipeline_warmup:,} orders of another item at the same rate"
        if opts.pipeline_warmup > 0 else "- no pipeline warm-up: the services compile their hot paths during the run",
        f"- topology: {opts.topology}" + (" (Redis Cluster 3+3, three Kafka brokers, two of each service)"
                                          if opts.topology == "cluster" else " (one of each)"),
        f"- item {opts.item}, stock {opts.stock:,}, quantity {opts.quantity}, gate {opts.gate} ({ORDER_PATHS[opts.gate]})",
        "",
        report.percentile_table([(opts.name, stats)]),
        "",
        f"- answers by status: {result['statuses']}",
        f"- achieved rate: {stats.achieved_rps:.1f} requests/s ({rate or f'BELOW {opts.min_rate:.0%} of target'})",
        f"- drain (last response → stock database applied): {drain_s:.2f} s" if drained_ok
        else f"- drain: NOT DRAINED within {opts.drain_timeout_s:.0f} s",
        f"- reconciliation: {'exact' if reconcile.returncode == 0 else 'FAILED'} (see reconciliation.md)",
        "- server-side latency of the endpoint (order-api's own histogram, bucket bounds): "
        + (", ".join(f"{k.replace('_ms', '')} {v:.1f} ms" for k, v in settings["server_latency"].items() if k != "events")
           or "not available"),
        "- end-to-end latency (order accepted → applied in the stock database; histogram bucket bounds): "
        + (", ".join(f"{k.replace('_ms', '')} {v:.0f} ms" for k, v in settings["end_to_end_latency"].items() if k != "events")
           or "not available"),
        f"- memory (MiB, RSS / peak): " + ", ".join(f"{k} {v.get('VmRSS')}/{v.get('VmHWM')}"
                                                   for k, v in settings["memory_mib"].items()),
        f"- plots: " + ", ".join(p.name for p in plots),
        "",
        "CPU per order answered, from /proc (user + system, all threads; a role's processes summed: "
        + ", ".join(f"{role} {n}" for role, n in cpu.processes_by_role(sampler.pids).items())
        + "); steady part: from 25 % to 95 % of the answers; whole run: from Locust's start until the stock "
        "database applied the last order (cpu.csv):",
        "",
        cpu.table(cpu.by_role(costs["steady"]), cpu.by_role(costs["whole"]), "locust"),
        "",
        "- database statements per order, whole run, all services (SHOW GLOBAL STATUS deltas): "
        + (", ".join(f"{k} {v}" for k, v in statements.items()) or "not available"),
        "",
        f"**verdict: {'PASS' if verdict_ok else 'FAIL'}**",
    ]
    (out / "summary.md").write_text("\n".join(summary) + "\n")
    print("\n".join(summary))
    log(f"results in {out}")
    return RunResult(0 if verdict_ok else 1, stats)


def cpu_costs(sampler: cpu.CpuSampler, history: list[dict], result: dict, out: Path) -> dict:
    """CPU µs per order of each process, steady part and whole run; writes the raw samples to cpu.csv."""
    answered = [(float(h["t"]), h["requests"]) for h in history]
    names = list(sampler.pids)
    with (out / "cpu.csv").open("w", encoding="utf-8") as f:
        f.write("epoch_s,answered," + ",".join(f"{n}_cpu_s" for n in names) + "\n")
        for s in sampler.samples:
            f.write(f"{s.at:.3f},{cpu.answered_at(answered, s.at):.0f},"
                    + ",".join("" if s.cpu_s.get(n) is None else f"{s.cpu_s[n]:.2f}" for n in names) + "\n")
    total = result["completed"]
    window = cpu.steady_window(sampler.samples, answered, total)
    steady = None if window is None else cpu.per_order_us(window[0], window[1], window[2])
    whole = cpu.per_order_us(cpu.first_known(sampler.samples), cpu.last_known(sampler.samples), total)
    return {"steady": steady, "whole": whole}


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The module's text as written, and every option's default after its help (those whose default is the
    service's own say so in their help)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def parse_args(argv: list[str]) -> RunOptions:
    p = argparse.ArgumentParser(prog="scripts/bench", description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--name", default="seed", help="label of the run (results folder, table column)")
    p.add_argument("--requests", type=int, default=100_000, help="orders to send; the scenario stops after them")
    p.add_argument("--rps", type=float, default=1000.0, help="target arrival rate (orders/s)")
    p.add_argument("--arrivals", choices=("smooth", "burst"), default="smooth",
                   help="smooth: users spread evenly; burst: users fire once a second in lockstep")
    p.add_argument("--users", type=int, help="simulated users (default: 100 smooth, 1000 burst)")
    p.add_argument("--item", default="1234", help="item ordered (its stock is reset before the run)")
    p.add_argument("--topology", choices=TOPOLOGIES,
                   help="single or cluster (scripts/stack up --cluster); default: the one the stack runs, else single")
    p.add_argument("--stock", type=int, default=1_000_000, help="units the item is reset to")
    p.add_argument("--quantity", type=int, default=1, help="units per order")
    p.add_argument("--gate", choices=tuple(ORDER_PATHS), default="redis",
                   help="redis: the engine; db-lock: the SELECT … FOR UPDATE baseline")
    p.add_argument("--tomcat-threads", type=int, help="order-api's server.tomcat.threads.max (default: the service's, 200)")
    p.add_argument("--hikari-pool", type=int, help="order-api's Hikari pool size (default: the service's, 20)")
    p.add_argument("--warmup", type=int, help="order-api's JIT warm-up requests, 0 = off (default: the service's, 200)")
    p.add_argument("--virtual-threads", choices=("on", "off"),
                   help="virtual threads, JDK 21+ only (default: the service's, off)")
    p.add_argument("--lock-mode", choices=("redisson", "none"),
                   help="stock-consumer's item lock; none measures its cost (default: the service's, redisson)")
    p.add_argument("--no-build", action="store_true", help="use the jars as built")
    p.add_argument("--no-restart", action="store_true", help="keep the running services")
    p.add_argument("--drain-timeout", type=float, default=120.0,
                   help="seconds the stock database may take to apply every accepted order")
    p.add_argument("--pipeline-warmup", type=int, default=30_000,
                   help="orders of another item sent through the whole pipeline before the run (0 = none)")
    p.add_argument("--min-rate", type=float, default=0.99,
                   help="share of --rps the run must achieve to pass; 0 reports the rate without judging it (the "
                        "CI smoke run: speed is for benchmarks, not tests)")
    p.add_argument("--out", type=Path, help="results folder (default: results/<time>-<name>)")
    a = p.parse_args(argv)
    return RunOptions(
        name=a.name, requests=a.requests, rps=a.rps, arrivals=a.arrivals, users=a.users, item=a.item,
        topology=a.topology or running_topology(),
        command=" ".join(["scripts/bench", *argv]),
        stock=a.stock, quantity=a.quantity, gate=a.gate, build=not a.no_build, restart=not a.no_restart,
        drain_timeout_s=a.drain_timeout, pipeline_warmup=a.pipeline_warmup, min_rate=a.min_rate, out=a.out,
        settings=ServiceSettings(tomcat_threads=a.tomcat_threads, hikari_pool=a.hikari_pool,
                                 warmup_requests=a.warmup,
                                 virtual_threads=None if a.virtual_threads is None else a.virtual_threads == "on",
                                 lock_mode=a.lock_mode))


def main(argv: list[str] | None = None) -> int:
    return run(parse_args(sys.argv[1:] if argv is None else argv)).exit_code


if __name__ == "__main__":
    sys.exit(main())
