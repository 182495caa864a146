"""Tuning experiments: runs a list of configurations one after another, each on a freshly reset item with
the services restarted, and writes the side-by-side percentile table and one comparison chart.

    scripts/bench-matrix [locust/matrix/published.toml] [--requests N] [--out DIR]

A matrix file is TOML: a [defaults] table with any scripts/bench option (requests, rps, arrivals, ...) and
one [[run]] table per configuration with a `name` and the settings it changes (tomcat_threads, hikari_pool,
warmup, virtual_threads, lock_mode, arrivals, ...).
"""
import argparse
import datetime as dt
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from flashbench import report
from flashbench.bench.options import RunOptions, ServiceSettings
from flashbench.bench.run import run
from flashbench.console import log
from flashbench.stack import ROOT

SERVICE_KEYS = {"tomcat_threads", "hikari_pool", "warmup", "virtual_threads", "lock_mode"}
RUN_KEYS = {"requests", "rps", "arrivals", "users", "item", "stock", "quantity", "drain_timeout_s"}


def options_for(entry: dict, defaults: dict, out: Path, build: bool) -> RunOptions:
    merged = {**defaults, **entry}
    unknown = set(merged) - SERVICE_KEYS - RUN_KEYS - {"name"}
    if unknown:
        raise ValueError(f"unknown settings in matrix entry {entry.get('name')}: {sorted(unknown)}")
    settings = ServiceSettings(tomcat_threads=merged.get("tomcat_threads"), hikari_pool=merged.get("hikari_pool"),
                               warmup_requests=merged.get("warmup"), virtual_threads=merged.get("virtual_threads"),
                               lock_mode=merged.get("lock_mode"))
    run_settings = {k: merged[k] for k in RUN_KEYS if k in merged}
    command = f"scripts/bench-matrix {' '.join(sys.argv[1:])} (entry {entry['name']})"
    return replace(RunOptions(), name=entry["name"], out=out / entry["name"], build=build, settings=settings,
                   command=command, **run_settings)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/bench-matrix", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("matrix", nargs="?", type=Path, default=ROOT / "locust" / "matrix" / "published.toml")
    p.add_argument("--requests", type=int, help="override every run's request count (shorter experiments)")
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    spec = tomllib.loads(a.matrix.read_text())
    defaults = dict(spec.get("defaults", {}))
    if a.requests:
        defaults["requests"] = a.requests
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or ROOT / "results" / f"{stamp}-matrix-{a.matrix.stem}"
    out.mkdir(parents=True, exist_ok=True)

    columns, verdicts = [], []
    for i, entry in enumerate(spec["run"]):
        opts = options_for(entry, defaults, out, build=i == 0)
        log(f"matrix {a.matrix.name}: run {i + 1}/{len(spec['run'])}: {opts.name}")
        result = run(opts)
        verdicts.append((opts.name, result.exit_code))
        columns.append((opts.name, result.stats))

    table = report.percentile_table(columns)
    report.plot_comparison(columns, out / "comparison.png", f"{a.matrix.stem}: {defaults.get('requests', 100000):,} "
                                                            f"requests at {defaults.get('rps', 1000):g}/s")
    lines = [f"# Tuning matrix {a.matrix.name}, {stamp}", "", f"`scripts/bench-matrix {' '.join(sys.argv[1:])}`", "",
             "| run | settings |", "|---|---|"]
    lines += [f"| {e['name']} | {', '.join(f'{k}={v}' for k, v in e.items() if k != 'name') or 'defaults'} |"
              for e in spec["run"]]
    lines += ["", table, "", "verdicts: " + ", ".join(f"{n} {'PASS' if rc == 0 else 'FAIL'}" for n, rc in verdicts),
              "", "![comparison](comparison.png)"]
    (out / "matrix.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(rc == 0 for _, rc in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
