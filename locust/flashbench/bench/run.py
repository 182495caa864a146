"""One benchmark run in order: the services made ready, the stock reset, the Locust scenario with every process's
CPU sampled until the pipeline drained, the reconciliation, then the figures gathered into the results folder."""
import datetime as dt
import subprocess
from dataclasses import dataclass

from flashbench import cpu, report
from flashbench.bench import footprint, latency, summary
from flashbench.bench.drain import measure_drain
from flashbench.bench.locust_run import run_locust
from flashbench.bench.options import RunOptions
from flashbench.bench.services import prepare_services, warm_pipeline
from flashbench.bench.verdict import passed, rate_verdict
from flashbench.console import log
from flashbench.stack import RECONCILE, ROOT, stack_pids
from flashbench.stockdb import reset_stock


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    stats: report.RunStats


def run(opts: RunOptions) -> RunResult:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    # absolute: Locust runs in this folder, and relative paths given to it would nest
    out = (opts.out or ROOT / "results" / f"{stamp}-{opts.name}").resolve()
    out.mkdir(parents=True, exist_ok=True)
    prepare_services(opts)
    warm_pipeline(opts, out / "pipeline-warmup")
    reset_stock(opts.item, opts.stock, opts.gate)

    statements_before = footprint.db_statements()
    server_before = latency.server_histogram(opts.gate, opts.topology)
    # the whole run's CPU ends when the pipeline has applied the last order, not at the last answer
    with cpu.CpuSampler(stack_pids()) as sampler:
        start, end, result = run_locust(opts, out, sampler)
        accepted = result["statuses"].get("200", 0)
        log(f"Locust done in {end - start:.1f} s: {result['statuses']}")
        drain_s = measure_drain(opts.item, accepted, result["last_answer_at"], opts.drain_timeout_s)
    statements_after = footprint.db_statements()
    server_after = latency.server_histogram(opts.gate, opts.topology)

    log(f"reconciling {opts.item}: Redis, orders, outbox, Kafka and the stock database (waits up to 60 s to drain)")
    reconcile = subprocess.run([str(RECONCILE), opts.item, "--wait", "60", "--out", str(out)], check=False)

    stats = report.from_result(result)
    history = report.read_history(out / "locust_stats_history.csv")
    plots = report.plot_run(history, out, opts.name)
    answered = [(float(h["t"]), h["requests"]) for h in history]
    cpu.write_samples(out / "cpu.csv", sampler, answered)
    rate = rate_verdict(stats.achieved_rps, opts.rps, opts.min_rate)
    measured = summary.Measured(
        stats=stats, result=result, rate=rate, drain_s=drain_s, reconciled=reconcile.returncode == 0,
        passed=passed(stats.failures, rate, drain_s is not None, reconcile.returncode == 0), plots=plots,
        processes=cpu.processes_by_role(sampler.pids), costs=cpu.costs(sampler.samples, answered, result["completed"]),
        statements=footprint.statements_per_order(statements_before, statements_after, accepted))
    settings = summary.settings(opts, stamp, measured, footprint.service_info(), footprint.process_memory(),
                                latency.end_to_end_latency(opts.topology),
                                latency.percentiles_ms(latency.since(server_before, server_after)))
    print(summary.write(out, opts, stamp, measured, settings))
    log(f"results in {out}")
    return RunResult(0 if measured.passed else 1, stats)
