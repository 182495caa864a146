"""The bench's command line: `scripts/bench --help`."""
import argparse
import sys
from pathlib import Path

from flashbench import bench
from flashbench.bench.options import ORDER_PATHS, RunOptions, ServiceSettings
from flashbench.bench.run import run
from flashbench.stack import TOPOLOGIES, running_topology


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The module's text as written, and every option's default after its help (those whose default is the
    service's own say so in their help)."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def parse_args(argv: list[str]) -> RunOptions:
    p = argparse.ArgumentParser(prog="scripts/bench", description=bench.__doc__, formatter_class=HelpFormatter)
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
