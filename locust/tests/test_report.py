from pathlib import Path

import pytest

from flashbench import report

def result() -> dict:
    return {"statuses": {"200": 998, "503": 2}, "requests": 1000, "failures": 2, "average_ms": 4.5, "max_ms": 251.3,
            "percentiles_ms": {"50%": 3, "66%": 4, "75%": 5, "80%": 5, "90%": 7, "95%": 9, "98%": 12, "99%": 15,
                               "99.9%": 40, "99.99%": 200},
            "achieved_rps": 500.0}


def test_reads_the_final_figures_with_the_exact_maximum():
    stats = report.from_result(result())
    assert stats.requests == 1000 and stats.failures == 2
    assert stats.percentiles["99%"] == 15 and stats.percentiles["100%"] == 251.3
    assert stats.achieved_rps == pytest.approx(500.0)


def test_table_has_the_usual_rows_in_order():
    stats = report.from_result(result())
    table = report.percentile_table([("a", stats), ("b", stats)]).splitlines()
    labels = [line.split("|")[1].strip() for line in table[2:]]
    assert labels == ["100% (ms)", "99.99% (ms)", "99.9% (ms)", "99% (ms)", "98% (ms)", "95% (ms)", "90% (ms)",
                      "80% (ms)", "75% (ms)", "66% (ms)", "50% (ms)", "average (ms)", "requests", "failures",
                      "achieved req/s"]
    assert table[0] == "| | a | b |"
    assert "| 99% (ms) | 15 | 15 |" in table
    assert "| 100% (ms) | 251 | 251 |" in table


def test_history_skips_rows_without_numbers(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("Timestamp,User Count,Type,Name,Requests/s,Failures/s,50%,66%,75%,80%,90%,95%,98%,99%,99.9%,"
                    "99.99%,100%,Total Request Count\n"
                    "100,10,,Aggregated,0.0,0,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,N/A,0\n"
                    "101,10,,Aggregated,990.5,0,2,3,3,3,4,5,6,8,20,30,40,990\n")
    rows = report.read_history(path)
    assert rows == [{"t": 101, "rps": 990.5, "p50": 2.0, "p95": 5.0, "p99": 8.0, "p999": 20.0, "max": 40.0,
                     "users": 10, "requests": 990, "failures": 0}]


def test_spike_percentile_is_nearest_rank():
    from flashbench.spike import percentile
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 99) == 99.0
    assert percentile(values, 100) == 100.0
    assert percentile(values, 50) == 50.0
    assert percentile([], 99) == 0.0


def test_vegeta_results_give_exact_percentiles_and_count_every_answer_not_200():
    from flashbench import vegeta
    # vegeta's CSV: timestamp (ns), status, latency (ns), bytes out, bytes in, error, body, …
    rows = [f"{i * 1_000_000},200,{(i + 1) * 1_000_000},52,102,,,,{i},POST,http://x/,"
            for i in range(98)]
    rows += ["98000000,503,500000,52,90,,,,98,POST,http://x/,", "99000000,0,30000000000,0,0,timeout,,,99,POST,http://x/,"]
    run = vegeta.summarize(vegeta.parse_csv("\n".join(rows) + "\n"), 100)
    assert run.ok == 98 and run.failures == 2 and run.statuses == {200: 98, 503: 1, 0: 1}
    assert run.percentiles_ms["p50"] == 49.0  # 0.5, then 1..98 ms, then 30 s: the 50th of 100
    assert run.max_ms == 30_000.0
    assert run.refused == 1 and run.other_failures == 1 and run.refused_percentiles_ms["p99"] == 0.5
    assert run.ok_percentiles_ms["p99"] == 98.0


def test_overload_passes_only_when_the_excess_is_refused_fast_and_nothing_else_fails():
    from flashbench import vegeta
    from flashbench.openload import overload_failures

    def run(ok_rps, refused_p99, others=0):
        return vegeta.OpenRun(target_rps=6000, requests=1, achieved_rps=ok_rps, ok=1, failures=10 + others,
                              statuses={}, average_ms=0, max_ms=0, percentiles_ms={}, refused=10,
                              refused_percentiles_ms={"p50": 1.0, "p99": refused_p99})

    assert overload_failures(run(2800, 20), 3000, 50) == []
    assert overload_failures(run(2600, 20), 3000, 50) == ["2600/s answered 200, below 90 % of 3000"]
    assert overload_failures(run(2800, 80), 3000, 50) == ["p99 of the refusals 80.0 ms, above 50"]
    assert overload_failures(run(2800, 20, others=3), 3000, 50) == ["3 answers neither 200 nor 503"]
    queued = vegeta.OpenRun(target_rps=6000, requests=1, achieved_rps=3800, ok=1, failures=0, statuses={},
                            average_ms=0, max_ms=0, percentiles_ms={})
    assert overload_failures(queued, 3000, 50) == ["nothing was refused: the excess queued"]


def test_matrix_entries_merge_defaults_and_reject_unknown_settings(tmp_path):
    from flashbench.matrix import options_for
    opts = options_for({"name": "t300", "tomcat_threads": 300, "warmup": 0}, {"requests": 5000, "rps": 500},
                       tmp_path, build=False)
    assert opts.requests == 5000 and opts.rps == 500 and opts.out == tmp_path / "t300"
    assert opts.settings.env() == {"SERVER_TOMCAT_THREADS_MAX": "300", "FLASHSTOCK_WARMUP_ENABLED": "false",
                                   "FLASHSTOCK_WARMUP_REQUESTS": "0"}
    with pytest.raises(ValueError):
        options_for({"name": "x", "tomcat_thread": 1}, {}, tmp_path, build=False)


def test_shipped_matrices_parse(tmp_path):
    import tomllib
    from flashbench.matrix import options_for
    for f in (Path(__file__).parents[1] / "matrix").glob("*.toml"):
        spec = tomllib.loads(f.read_text())
        for entry in spec["run"]:
            options_for(entry, spec.get("defaults", {}), tmp_path, build=False)
