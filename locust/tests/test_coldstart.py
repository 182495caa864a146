"""The cold-start report: answers grouped into windows by when their request was sent."""
from flashbench import coldstart
from flashbench.vegeta import Answer

S = 10**9
MS = 10**6


def test_windows_group_by_send_time_from_the_first_request():
    answers = [Answer(100 * S + 0, 200, 300 * MS), Answer(100 * S + 4 * S, 200, 10 * MS),
               Answer(100 * S + 5 * S, 500, 2 * MS), Answer(100 * S + 12 * S, 200, 1 * MS)]
    result = coldstart.windows(answers, 5)
    assert [(w.start_s, w.end_s, w.requests, w.not_200) for w in result] == [(0, 5, 2, 0), (5, 10, 1, 1),
                                                                             (10, 15, 1, 0)]
    # a slow answer counts in the window its request was sent in, not the one it arrived in
    assert result[0].max_ms == 300 and result[0].p50_ms == 10 and result[0].p99_ms == 300


def test_summary_fails_when_the_first_window_misses_the_limit():
    run = {"run": 1, "ready_s": 9.0, "trained_s": {}, "warmup": "—", "exact": True,
           "windows": coldstart.windows([Answer(0, 200, 60 * MS), Answer(6 * S, 200, 1 * MS)], 5)}
    md = "\n".join(coldstart.summary([run], "scripts/coldstart", "now", 5, 50))
    assert "FAILED (60.0 ms)" in md
    assert "| 0–5 | 60.0 / 60.0 / 60 | 0 |" in md


def test_window_cores_from_the_samples_nearest_to_the_window():
    samples = [coldstart.cpu.Sample(100.0, {"order-api": 10.0, "redis": None}),
               coldstart.cpu.Sample(101.0, {"order-api": 10.5, "redis": 1.0}),
               coldstart.cpu.Sample(102.1, {"order-api": 12.0, "redis": 1.0})]
    cores = coldstart.window_cores(samples, 100.1, 102.0)
    assert cores.keys() == {"order-api"} and abs(cores["order-api"] - 2.0 / 2.1) < 1e-9


def test_csv_has_a_cores_column_per_engine_process():
    run = {"run": 1, "windows": coldstart.windows([Answer(0, 200, MS)], 5), "cores": [{"order-api": 1.234}]}
    header, row = coldstart.csv_lines([run])
    assert header.endswith("cores_order-api,cores_outbox-relay,cores_stock-consumer,cores_mariadb,cores_redis,"
                           "cores_kafka")
    assert row == "1,0,5,1,0,1.00,1.00,1.00,1.23,,,,,"
