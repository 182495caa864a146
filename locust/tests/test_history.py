"""The fault suite's checker, fed small histories: a clean one passes, and each violation is found and named."""
from dataclasses import replace

from flashbench.history import Generation, History, Order, Request, StockLevel, check


def ok(code: str, units: int = 1, user: str = "u1", at: float = 0.0, key: str | None = None) -> Request:
    return Request(sent_at=at, answered_at=at + 0.01, status=200, order_code=code, units=units, user_id=user,
                   idempotency_key=key)


def refused(status: int, problem: str, units: int = 1, user: str = "u1", code: str | None = None) -> Request:
    return Request(sent_at=1.0, answered_at=1.01, status=status, code=problem, order_code=code, units=units,
                   user_id=user)


def clean() -> History:
    """Two generations: the first (baseline 5) sold out exactly, then reset to 10, of which 4 sold; a limit of 3
    per user in both. Every 200 is committed and applied, the stock database is at generation 2 and Redis holds
    baseline − Σ orders of generation 2."""
    requests = [ok("a", 3, "u1"), ok("b", 2, "u2"), refused(409, "SOLD_OUT", 1, "u3"),
                refused(409, "PER_USER_LIMIT_REACHED", 1, "u1"), refused(503, "STOCK_RELOADING", 2, "u4"),
                refused(503, "DATABASE_UNAVAILABLE", 1, "u5", code="x"),  # in doubt, then given back
                Request(sent_at=2.0, answered_at=2.5, status=-1, code="ConnectionRefusedError", units=1, user_id="u6"),
                ok("c", 3, "u1", key="k1"), ok("c", 3, "u1", key="k1"),  # the same key sent twice: one order
                ok("d", 1, "u2")]
    orders = {"a": Order(1, "u1", 3), "b": Order(1, "u2", 2), "c": Order(2, "u1", 3), "d": Order(2, "u2", 1)}
    return History(requests=requests, orders=orders, applied={"a", "b", "c", "d"},
                   generations={1: Generation(5, 3), 2: Generation(10, 3)}, current_generation=2,
                   redis_counter=6, stock_level=StockLevel(generation=2, baseline=10, quantity=6, events_applied=2))


def test_a_clean_history_passes_with_every_figure_zero():
    verdict = check(clean())
    assert verdict.passed, verdict.findings
    assert (verdict.oversold, verdict.lost, verdict.applied_twice, verdict.limit_exceeded,
            verdict.refused_committed) == (0, 0, 0, 0, 0)
    assert verdict.stranded == 0 and verdict.surplus == 0
    assert verdict.findings == []


def test_oversold_in_one_generation_is_counted_against_its_own_baseline_only():
    h = clean()
    # generation 1 commits 7 units of 5; generation 2 keeps its 4 of 10 (its spare units do not offset the other)
    h = replace(h, requests=[*h.requests, ok("e", 2, "u7")], orders={**h.orders, "e": Order(1, "u7", 2)},
                applied={*h.applied, "e"})
    verdict = check(h)
    assert verdict.oversold == 2
    assert not verdict.passed
    assert any("generation 1" in f and "oversold by 2 units" in f for f in verdict.findings)
    assert not any("generation 2" in f and "oversold" in f for f in verdict.findings)


def test_orders_of_a_generation_nobody_set_are_all_oversold():
    h = clean()
    h = replace(h, orders={**h.orders, "z": Order(7, "u9", 2)})
    verdict = check(h)
    assert verdict.oversold == 2
    assert any("generation 7" in f for f in verdict.findings)


def test_a_200_whose_order_was_not_committed_is_lost():
    h = clean()
    verdict = check(replace(h, requests=[*h.requests, ok("ghost", 1, "u8")]))
    assert verdict.lost == 1
    assert not verdict.passed
    assert any("ghost" in f and "not committed" in f for f in verdict.findings)


def test_a_200_whose_order_is_committed_but_never_applied_is_lost():
    h = clean()
    verdict = check(replace(h, applied=h.applied - {"b"}))
    assert verdict.lost == 1
    assert any("order b " in f and "not applied" in f for f in verdict.findings)


def test_a_200_without_an_order_code_is_lost():
    h = clean()
    verdict = check(replace(h, requests=[*h.requests, ok(None, 1, "u8")]))
    assert verdict.lost == 1


def test_an_event_applied_twice_is_found_by_events_and_by_units():
    h = clean()
    twice = replace(h.stock_level, events_applied=3)  # 3 deductions applied for 2 orders
    assert check(replace(h, stock_level=twice)).applied_twice == 1
    more_units = replace(h.stock_level, quantity=4)  # 6 units taken for orders of 4
    verdict = check(replace(h, stock_level=more_units))
    assert verdict.applied_twice == 2
    assert not verdict.passed


def test_a_user_over_the_limit_within_a_generation_is_found():
    h = clean()
    # u2 already has 2 units in generation 1; 2 more make 4 of a limit of 3
    h = replace(h, requests=[*h.requests, ok("f", 2, "u2")], orders={**h.orders, "f": Order(1, "u2", 2)},
                applied={*h.applied, "f"}, generations={1: Generation(10, 3), 2: Generation(10, 3)})
    verdict = check(h)
    assert verdict.limit_exceeded == 1
    assert verdict.oversold == 0
    assert not verdict.passed
    assert any("u2" in f and "generation 1" in f for f in verdict.findings)


def test_the_limit_counts_each_generation_apart_and_none_means_no_limit():
    h = clean()
    # u1 bought 3 in generation 1 and 3 in generation 2: 6 in all, at most 3 in each
    assert check(h).limit_exceeded == 0
    no_limit = replace(h, generations={1: Generation(5, None), 2: Generation(10, None)},
                       orders={**h.orders, "g": Order(2, "u1", 3)}, applied={*h.applied, "g"},
                       stock_level=replace(h.stock_level, quantity=3, events_applied=3), redis_counter=3)
    assert check(no_limit).limit_exceeded == 0


def test_a_sold_out_answer_whose_order_exists_anyway_fails():
    h = clean()
    h = replace(h, requests=[*h.requests, refused(409, "SOLD_OUT", 1, "u9", code="d")])
    verdict = check(h)
    assert verdict.refused_committed == 1
    assert not verdict.passed
    assert any("409 SOLD_OUT" in f for f in verdict.findings)


def test_an_order_in_doubt_may_be_committed_or_not():
    h = clean()
    # "x" was in doubt and given back in clean(); here "d" was in doubt and committed after all
    in_doubt = replace(h, requests=[*h.requests, refused(503, "DATABASE_UNAVAILABLE", 1, "u2", code="d")])
    verdict = check(in_doubt)
    assert verdict.passed, verdict.findings
    assert verdict.refused_committed == 0


def test_stranded_units_are_reported_without_failing_the_run():
    h = clean()
    verdict = check(replace(h, redis_counter=4))  # 6 should still be for sale
    assert verdict.stranded == 2
    assert verdict.surplus == 0
    assert verdict.passed
    assert any("stranded" in f for f in verdict.findings)


def test_units_held_by_unused_tokens_are_not_stranded():
    # the token gate's live holds lower the counter until they expire: held, not lost to the sale
    verdict = check(replace(clean(), redis_counter=4, token_held=2))
    assert verdict.stranded == 0
    assert verdict.surplus == 0
    assert verdict.findings == ["2 units held by unused purchase tokens: they come back when the tokens expire"]


def test_stranded_units_beyond_the_token_holds_are_still_reported():
    verdict = check(replace(clean(), redis_counter=3, token_held=2))
    assert verdict.stranded == 1


def test_a_counter_above_the_truth_is_reported_as_surplus():
    verdict = check(replace(clean(), redis_counter=9))
    assert verdict.surplus == 3
    assert verdict.stranded == 0


def test_a_missing_counter_leaves_stranded_unknown():
    verdict = check(replace(clean(), redis_counter=None))
    assert verdict.stranded is None and verdict.surplus is None
    assert verdict.passed


def test_committed_orders_no_200_named_are_counted_for_information():
    h = clean()
    # the transport error's order was committed: the client never heard of it
    h = replace(h, orders={**h.orders, "y": Order(2, "u6", 1)}, applied={*h.applied, "y"},
                stock_level=replace(h.stock_level, quantity=5, events_applied=3), redis_counter=5)
    verdict = check(h)
    assert verdict.committed_unanswered == 1
    assert verdict.passed, verdict.findings


def test_a_stock_database_behind_the_current_generation_is_judged_against_its_own():
    h = clean()
    # the stock database still holds generation 1: 5 units taken by its 2 orders is right, nothing applied twice
    behind = replace(h, stock_level=StockLevel(generation=1, baseline=5, quantity=0, events_applied=2))
    verdict = check(behind)
    assert verdict.applied_twice == 0
    assert any("generation 1" in f and "stock database" in f for f in verdict.findings)
