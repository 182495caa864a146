import pytest

from flashbench.bench import cli, footprint, latency, locust_run, services
from flashbench.bench.drain import drain_seconds
from flashbench.bench.verdict import passed, rate_verdict


def test_drain_is_from_the_last_answer_to_the_last_application():
    # 2026-11-23T07:00:00Z is 1795417200 s after the epoch
    assert drain_seconds(1795417200.0, "2026-11-23T07:00:01.250000Z") == 1.25


def test_an_order_applied_before_the_last_answer_arrived_drains_in_zero():
    assert drain_seconds(1795417200.0, "2026-11-23T06:59:59.900000Z") == 0.0


def test_the_rate_passes_at_its_share_of_the_target_and_fails_below():
    assert rate_verdict(990.0, 1000.0, 0.99) == "ok"
    assert rate_verdict(989.9, 1000.0, 0.99) is None


def test_a_min_rate_of_zero_reports_the_rate_without_judging_it():
    assert rate_verdict(10.0, 1000.0, 0.0) == "not judged"


def test_a_run_passes_only_without_failures_at_its_rate_drained_and_reconciled():
    assert passed(0, "ok", True, True) and passed(0, "not judged", True, True)
    assert not passed(1, "ok", True, True)
    assert not passed(0, None, True, True)
    assert not passed(0, "ok", False, True)
    assert not passed(0, "ok", True, False)


def test_database_statements_are_counted_per_order_for_the_counters_read_both_times():
    before, after = {"Questions": 1000, "Com_commit": 10}, {"Questions": 4000, "Com_commit": 1010, "Com_select": 9}
    assert footprint.statements_per_order(before, after, 3000) == {"Questions": 1.0, "Com_commit": 0.33}
    assert footprint.statements_per_order(before, after, 0) == {"Questions": 3000.0, "Com_commit": 1000.0}


def test_the_server_histogram_of_a_run_leaves_out_what_came_before():
    before = {"counts": {0.005: 900.0, 0.05: 1000.0, float("inf"): 1000.0}, "max": 0.2}
    after = {"counts": {0.005: 1880.0, 0.05: 2000.0, float("inf"): 2000.0}, "max": 0.04}
    run = latency.percentiles_ms(latency.since(before, after))
    assert run["events"] == 1000
    assert run["p50_ms"] == 5.0 and run["p99_ms"] == 50.0
    assert run["max_ms"] == 40.0


def test_the_dashboard_address_carries_the_development_token_only():
    assert services.dashboard_address({}) == "http://127.0.0.1:8080/dashboard#token=dev-admin-token"
    assert services.dashboard_address({"ORDER_API_PORT": "18080", "STOCK_ADMIN_TOKEN": "dev-admin-token"}) \
        == "http://127.0.0.1:18080/dashboard#token=dev-admin-token"
    mine = services.dashboard_address({"STOCK_ADMIN_TOKEN": "s3cret"})
    assert "s3cret" not in mine
    assert mine.endswith("#token=<your STOCK_ADMIN_TOKEN>")


def test_the_progress_line_says_how_far_how_fast_and_how_long_still():
    history = [{"requests": 20_000, "p50": 6.0, "p99": 28.0, "failures": 0},
               {"requests": 30_000, "p50": 7.0, "p99": 31.0, "failures": 2}]
    line = locust_run.locust_progress(history, 100_000, 1000.0, 30.0)
    assert line == ("30,000/100,000 answered (30%), 1000/s so far, last 10 s p50 7 ms p99 31 ms, 2 failures, "
                    "~70 s left")
    assert locust_run.locust_progress([], 100_000, 1000.0, 3.0) == "0/100,000 answered, 3 s in"


def test_every_option_of_the_help_says_its_default(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one line per option, whatever the terminal
    with pytest.raises(SystemExit):
        cli.parse_args(["--help"])
    text = capsys.readouterr().out
    assert "(default: 100000)" in text and "(default: the service's, 200)" in text
    assert "(default: None)" not in text and "(default: False)" not in text


def test_the_summary_says_what_failed_and_gives_the_verdict():
    from flashbench import report
    from flashbench.bench.options import RunOptions
    from flashbench.bench.summary import Measured, summary

    stats = report.RunStats({row: 5.0 for row in report.PERCENTILE_ROWS}, 4.0, 1000, 0, 900.0)
    measured = Measured(stats=stats, result={"statuses": {"200": 1000}}, rate=None, drain_s=None, reconciled=True,
                        passed=False, plots=[], processes={"redis": 1},
                        costs={"steady": None, "whole": {"redis": 10.0}}, statements={})
    lines = summary(RunOptions(requests=1000, rps=1000.0), "20261126T000000Z", measured,
                    {"server_latency": {}, "end_to_end_latency": {}, "memory_mib": {}})
    assert "- achieved rate: 900.0 requests/s (BELOW 99% of target)" in lines
    assert "- drain: NOT DRAINED within 120 s" in lines
    assert "- reconciliation: exact (see reconciliation.md)" in lines
    assert lines[-1] == "**verdict: FAIL**"
