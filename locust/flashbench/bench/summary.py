"""A benchmark run's results folder: settings.json (what ran, on what, and the figures) and summary.md."""
import json
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path

from flashbench import cpu, report
from flashbench.bench.options import ORDER_PATHS, RunOptions


@dataclass(frozen=True)
class Measured:
    """What a run measured, as the summary reports it."""
    stats: report.RunStats
    result: dict  # the locustfile's figures
    rate: str | None  # verdict.rate_verdict
    drain_s: float | None  # None: not drained in time
    reconciled: bool
    passed: bool
    plots: list[Path]
    processes: dict  # how many of each role, cpu.processes_by_role
    costs: dict  # CPU µs per order, steady and whole, cpu.costs
    statements: dict  # per order, footprint.statements_per_order


def settings(opts: RunOptions, stamp: str, m: Measured, services: dict, memory: dict, end_to_end: dict,
             server: dict) -> dict:
    """settings.json's content: the options, the services' environment and build, and the figures measured."""
    return {"options": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(opts).items()},
            "service_env": opts.settings.env(), "services": services, "memory_mib": memory,
            "end_to_end_latency": end_to_end, "server_latency": server,
            "cpu_us_per_order": m.costs, "db_statements_per_order": m.statements,
            "machine": {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version()},
            "date": stamp}


def summary(opts: RunOptions, stamp: str, m: Measured, s: dict) -> list[str]:
    """summary.md's lines, from the options, what was measured and settings.json's content `s`."""
    return [
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
        report.percentile_table([(opts.name, m.stats)]),
        "",
        f"- answers by status: {m.result['statuses']}",
        f"- achieved rate: {m.stats.achieved_rps:.1f} requests/s ({m.rate or f'BELOW {opts.min_rate:.0%} of target'})",
        f"- drain (last response → stock database applied): {m.drain_s:.2f} s" if m.drain_s is not None
        else f"- drain: NOT DRAINED within {opts.drain_timeout_s:.0f} s",
        f"- reconciliation: {'exact' if m.reconciled else 'FAILED'} (see reconciliation.md)",
        "- server-side latency of the endpoint (order-api's own histogram, bucket bounds): "
        + (", ".join(f"{k.replace('_ms', '')} {v:.1f} ms" for k, v in s["server_latency"].items() if k != "events")
           or "not available"),
        "- end-to-end latency (order accepted → applied in the stock database; histogram bucket bounds): "
        + (", ".join(f"{k.replace('_ms', '')} {v:.0f} ms" for k, v in s["end_to_end_latency"].items() if k != "events")
           or "not available"),
        f"- memory (MiB, RSS / peak): " + ", ".join(f"{k} {v.get('VmRSS')}/{v.get('VmHWM')}"
                                                   for k, v in s["memory_mib"].items()),
        f"- plots: " + ", ".join(p.name for p in m.plots),
        "",
        "CPU per order answered, from /proc (user + system, all threads; a role's processes summed: "
        + ", ".join(f"{role} {n}" for role, n in m.processes.items())
        + "); steady part: from 25 % to 95 % of the answers; whole run: from Locust's start until the stock "
        "database applied the last order (cpu.csv):",
        "",
        cpu.table(cpu.by_role(m.costs["steady"]), cpu.by_role(m.costs["whole"]), "locust"),
        "",
        "- database statements per order, whole run, all services (SHOW GLOBAL STATUS deltas): "
        + (", ".join(f"{k} {v}" for k, v in m.statements.items()) or "not available"),
        "",
        f"**verdict: {'PASS' if m.passed else 'FAIL'}**",
    ]


def write(out: Path, opts: RunOptions, stamp: str, m: Measured, s: dict) -> str:
    """Writes settings.json and summary.md into the results folder; the summary's text."""
    (out / "settings.json").write_text(json.dumps(s, indent=2, default=str))
    text = "\n".join(summary(opts, stamp, m, s))
    (out / "summary.md").write_text(text + "\n")
    return text
