from flashbench import reconcile


def sample(holds: bool) -> dict:
    return {
        "generatedAt": "2026-11-21T13:00:00Z", "exact": holds, "drained": True,
        "kafka": {"topic": "stock-events", "group": "stock-consumer", "endOffsets": 101, "committedOffsets": 101,
                  "lag": 0, "deadLetters": 0},
        "items": [{
            "itemCode": "1234", "generation": 1, "baseline": 100, "redisRemaining": 0 if holds else 3,
            "expectedRemaining": 0, "orders": {"count": 100, "quantity": 100},
            "outbox": {"count": 100, "unsent": 0, "sent": 100, "dead": 0}, "partitionLag": 0,
            "stock": {"quantity": 0, "eventsApplied": 100, "anomalies": 0},
            "invariants": [
                {"name": "redis-matches-orders", "holds": holds, "expected": 0, "actual": 0 if holds else 3,
                 "difference": 0 if holds else 3, "comparison": "equal"},
                {"name": "outbox-matches-orders", "holds": True, "expected": 100, "actual": 100, "difference": 0,
                 "comparison": "equal"},
                {"name": "not-oversold", "holds": True, "expected": 100, "actual": 100, "difference": 0,
                 "detail": None, "comparison": "at-most"},
            ],
        }],
    }


def oversold() -> dict:
    """102 units committed of a baseline of 100, as order-api reports it."""
    report = sample(True)
    report["exact"] = False
    item = report["items"][0]
    item.update(expectedRemaining=-2, orders={"count": 102, "quantity": 102})
    item["invariants"] = [
        {"name": "redis-matches-orders", "holds": False, "expected": -2, "actual": 0, "difference": 2,
         "detail": "the Redis counter cannot match: the item is oversold (baseline − Σ orders = -2; see not-oversold)",
         "comparison": "equal"},
        {"name": "not-oversold", "holds": False, "expected": 100, "actual": 102, "difference": 2,
         "detail": "oversold by 2 units: the orders of generation 1 commit 102 units of a baseline of 100",
         "comparison": "at-most"},
    ]
    return report


def test_exact_report_has_no_failures_and_a_table_row():
    markdown = reconcile.to_markdown(sample(True))
    assert reconcile.failures(sample(True)) == []
    assert "EXACT" in markdown
    assert "| 1234 | 1 | 100 | 0 | 100 | 100 | 0 | 100 | 0 | 100 | 0 | 0 | 0 | 100 | 0 |" in markdown
    assert "| 1234 | not-oversold | yes | at most 100 | 100 | 0 |  |" in markdown


def test_an_item_the_stock_database_has_no_row_for_is_a_row_of_dashes():
    """order-api reports "stock": null until stock-consumer applied the item's first event (a stalled consumer)."""
    report = sample(False)
    report["items"][0]["stock"] = None
    row = next(line for line in reconcile.to_markdown(report).splitlines() if line.startswith("| 1234 |"))
    assert row.endswith("| — | — | — |")


def test_a_waiting_room_item_names_its_tickets_and_unused_admissions():
    report = sample(True)
    report["items"][0].update(gate="queue", waitingRoom={"waiting": 1200, "admittedUnused": 3, "admittedUnits": 4})
    markdown = reconcile.to_markdown(report)
    assert "| 1234 | 1,200 | 3 | 4 |" in markdown
    assert "waiting-room item" not in reconcile.to_markdown(sample(True))


def test_unused_tokens_of_a_token_item_are_named():
    report = sample(True)
    report["items"][0].update(gate="token", redisRemaining=0, unusedTokens={"count": 3, "units": 4})
    assert "Unused purchase tokens of 1234: 3 hold 4 units" in reconcile.to_markdown(report)
    assert "Unused purchase tokens" not in reconcile.to_markdown(sample(True))


def test_failed_invariant_is_named_with_its_amount():
    failed = reconcile.failures(sample(False))
    assert len(failed) == 1
    assert "redis-matches-orders failed: expected 0, actual 3 (difference 3)" in failed[0]
    assert "**NO**" in reconcile.to_markdown(sample(False))


def test_oversold_item_is_named_oversold_by_its_units():
    failed = reconcile.failures(oversold())
    markdown = reconcile.to_markdown(oversold())

    assert ("1234: not-oversold failed: expected at most 100, actual 102 (difference 2); oversold by 2 units"
            in failed[1])
    assert "drift" not in failed[0]
    assert "**DIVERGED: 1234 oversold by 2 units** — pipeline drained" in markdown
    assert "| 1234 | not-oversold | **NO** | at most 100 | 102 | 2 | oversold by 2 units" in markdown
    assert "| 1234 | 1 | 100 | 0 | 102 | 102 | -2 |" in markdown, "baseline − Σ shown negative, not clamped"


def test_a_report_from_before_the_comparison_field_reads_as_equalities():
    report = sample(False)
    for inv in report["items"][0]["invariants"]:
        del inv["comparison"]

    assert "expected 0, actual 3" in reconcile.failures(report)[0]


def test_repair_retries_while_another_reload_runs(monkeypatch):
    class Answer:
        def __init__(self, status: int, body: dict):
            self.status_code, self._body, self.text = status, body, str(body)

        def json(self) -> dict:
            return self._body

    answers = [Answer(503, {"code": "STOCK_RELOADING"}), Answer(200, {"redisRemaining": -2})]
    monkeypatch.setattr(reconcile.requests, "post", lambda *args, **kwargs: answers.pop(0))
    monkeypatch.setattr(reconcile.time, "sleep", lambda s: None)

    done = reconcile.repair_redis("http://order-api.test", oversold(), wait_s=30)

    assert done == ["repaired 1234: Redis counter set to -2 (was 0)"]
    assert answers == []
