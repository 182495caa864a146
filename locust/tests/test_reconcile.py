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
                 "difference": 0 if holds else 3},
                {"name": "outbox-matches-orders", "holds": True, "expected": 100, "actual": 100, "difference": 0},
            ],
        }],
    }


def test_exact_report_has_no_failures_and_a_table_row():
    markdown = reconcile.to_markdown(sample(True))
    assert reconcile.failures(sample(True)) == []
    assert "EXACT" in markdown
    assert "| 1234 | 1 | 100 | 0 | 100 | 100 | 0 | 100 | 0 | 100 | 0 | 0 | 0 | 100 | 0 |" in markdown


def test_failed_invariant_is_named_with_its_amount():
    failed = reconcile.failures(sample(False))
    assert len(failed) == 1
    assert "redis-matches-orders failed: expected 0, actual 3 (difference 3)" in failed[0]
    assert "**NO**" in reconcile.to_markdown(sample(False))
