"""The fault suite's command line: `scripts/faults --help` (python -m flashbench.faults)."""
import argparse
import datetime as dt
import json
import sys
import traceback
from dataclasses import asdict
from pathlib import Path

from flashbench import faults, stack
from flashbench.faults.judge import Outcome
from flashbench.faults.load import MEAN_UNITS, STOCK_SHARE, default_stock
from flashbench.faults.sale import run_scenario
from flashbench.faults.scenarios import SCENARIOS, SINGLE_ONLY
from flashbench.faults.tables import cluster_notes, restored_notes, table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/faults", description=faults.__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topology", choices=("single", "cluster"),
                   help="the stack's topology (default: what `scripts/stack topology` says it runs)")
    p.add_argument("--scenarios", help="comma-separated (default: every scenario of the topology), of: "
                   + ", ".join(SCENARIOS) + "; on the cluster topology also: redis-primary-kill, "
                   "redis-primary-rejoin, slot-migration, broker-leader-kill, brokers-down, and not: "
                   + ", ".join(sorted(SINGLE_ONLY)))
    p.add_argument("--rate", type=float, default=300.0, help="orders per second during each scenario")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of load per scenario")
    p.add_argument("--stock", type=int, help="the item's stock (default: --stock-share of the units asked)")
    p.add_argument("--stock-share", type=float, default=STOCK_SHARE,
                   help=f"the stock as a share of the units the load asks for (rate × duration × {MEAN_UNITS:g} "
                        "units); default %(default)s")
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    known, default = dict(SCENARIOS), list(SCENARIOS)
    if stack.configure_topology(a.topology) == "cluster":
        from flashbench.cluster import scenarios as cluster
        SCENARIOS.update(cluster.SCENARIOS)
        known, default = {k: v for k, v in SCENARIOS.items() if k not in SINGLE_ONLY}, cluster.DEFAULT
    names = a.scenarios.split(",") if a.scenarios else default
    unknown = [n for n in names if n not in known]
    if unknown:
        p.error(f"unknown scenarios {', '.join(unknown)} on the {stack.TOPOLOGY} topology; known: {', '.join(known)}")
    stock = a.stock or default_stock(a.rate, a.duration, a.stock_share)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or stack.ROOT / "results" / f"{stamp}-faults"
    out.mkdir(parents=True, exist_ok=True)
    outcomes = []
    for name in names:
        try:
            outcomes.extend(run_scenario(name, a.rate, a.duration, stock, out))
        except Exception as e:  # one broken scenario must not cost the others' results
            print(f"[faults] {name}: ERROR {e!r}", file=sys.stderr, flush=True)
            traceback.print_exc()
            outcomes.append(Outcome(name, "not completed", notes=f"error: {e!r}"))
    md = table(outcomes)
    restored = restored_notes(outcomes)
    measured = cluster_notes(outcomes) if stack.TOPOLOGY == "cluster" else ""
    (out / "faults.md").write_text(f"# Faults under load, {stamp}\n\n`scripts/faults {' '.join(sys.argv[1:])}`\n\n"
                                   f"{md}\n" + (f"\nRedis restarts:\n\n{restored}\n" if restored else "")
                                   + (f"\nMeasured:\n\n{measured}\n" if measured else ""))
    (out / "faults.json").write_text(json.dumps([asdict(o) for o in outcomes], indent=2))
    print(md)
    if restored:
        print("\n" + restored)
    if measured:
        print("\n" + measured)
    return 0 if all(o.passed for o in outcomes) else 1



sys.exit(main())
