from flashbench.bench import drain_seconds, rate_verdict


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
