"""The services a benchmark measures, made ready: the stack up, built and restarted with the run's settings, and
the whole pipeline warmed before the measured run."""
import dataclasses
import os
import subprocess
import time
from pathlib import Path

from flashbench import admin, cpu
from flashbench.bench.locust_run import run_locust
from flashbench.bench.options import RunOptions
from flashbench.console import log
from flashbench.polling import wait_until
from flashbench.stack import ROOT, STACK
from flashbench.stockdb import reset_stock, stock_item


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
