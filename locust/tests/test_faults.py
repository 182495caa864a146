"""The fault suite's own parts that need no stack: the scarce load, the timing, the table, the AOF's files, and
the load, the reset and the reload storm against a fake order-api."""
import csv
import itertools
import json
import signal
import time
from collections import Counter

import gevent
import pytest
from gevent.pywsgi import WSGIServer

from flashbench import admin, history, stack
from flashbench.faults import judge, probes, redis_faults, scenarios, tables
from flashbench.faults.judge import Outcome
from flashbench.faults.load import Draw, Load, QueueLoad, default_stock, draw_orders, ideal_sell_out, user_pool
from flashbench.faults.run import Run


def test_default_stock_is_forty_percent_of_the_units_asked():
    # 300/s for 60 s at 2 units on average ask for 36,000 units
    assert default_stock(300, 60, 0.4) == 14_400


def test_draws_are_scarce_orders_of_one_to_three_units_half_with_a_key():
    draws = draw_orders(3000, None, seed="item")
    assert draws == draw_orders(3000, None, seed="item")  # the faults are timed from them
    assert {d.units for d in draws} == {1, 2, 3}
    assert 1.9 < sum(d.units for d in draws) / len(draws) < 2.1
    assert all((d.idempotency_key is not None) == (i % 2 == 0) for i, d in enumerate(draws))
    assert len({d.user_id for d in draws}) == 3000


def test_a_pool_of_users_makes_the_limit_bite_and_the_stock_still_run_out():
    stock = default_stock(300, 60, 0.4)
    draws = draw_orders(300 * 60, user_pool(stock, 3), seed="item")
    assert len({d.user_id for d in draws}) <= user_pool(stock, 3)
    sold_out = ideal_sell_out(draws, stock, 3)
    assert sold_out is not None and sold_out < len(draws) * 0.9
    bought, refused = Counter(), 0
    for d in draws[:sold_out]:
        if bought[d.user_id] + d.units > 3:
            refused += 1
        else:
            bought[d.user_id] += d.units
    assert refused > sold_out * 0.1  # the limit refuses many orders before the sell-out


def test_the_ideal_sell_out_is_the_first_order_the_stock_cannot_serve():
    draws = [Draw(2, "a", None), Draw(3, "b", None), Draw(2, "c", None), Draw(1, "d", None)]
    assert ideal_sell_out(draws, 6, None) == 2  # 2 + 3 taken, 1 left, 2 asked
    assert ideal_sell_out(draws, 8, None) is None
    # with a limit of 2, b's 3 units are refused without taking stock
    assert ideal_sell_out(draws, 4, 2) == 3  # a 2, c 2: nothing left for d


def test_redis_env_turns_aof_on_or_back_to_the_stack_default(monkeypatch):
    monkeypatch.setenv("REDIS_APPENDONLY", "yes")
    assert "REDIS_APPENDONLY" not in redis_faults.redis_env(appendonly=False)
    assert redis_faults.redis_env(appendonly=True)["REDIS_APPENDONLY"] == "yes"


def test_the_aof_tail_is_the_last_incremental_file_of_the_manifest(tmp_path, monkeypatch):
    aof = tmp_path / "appendonlydir"
    aof.mkdir()
    (aof / "appendonly.aof.manifest").write_text("file appendonly.aof.2.base.rdb seq 2 type b\n"
                                                 "file appendonly.aof.3.incr.aof seq 3 type i\n"
                                                 "file appendonly.aof.4.incr.aof seq 4 type i\n")
    monkeypatch.setattr(redis_faults, "AOF_DIR", aof)
    monkeypatch.setattr(redis_faults, "REDIS_DIR", tmp_path)
    assert redis_faults.aof_tail() == aof / "appendonly.aof.4.incr.aof"
    redis_faults.forget_aof()
    assert not aof.exists()
    assert redis_faults.aof_tail() == tmp_path / "appendonly.aof"  # no manifest: Redis 6's single file


def test_the_table_shows_the_history_figures_generations_and_reloads():
    passed = Outcome("reset-during-load", "stock reset to 9000 at 24 s", stock={1: 14400, 2: 9000},
                     fault_window_s=[24.0, 24.31], sold_out_at_s=23.9, sent=18000, ok=9000, stranded=0,
                     statuses={"200": 9000, "409 SOLD_OUT": 9000}, reconciliation_exact=True)
    failed = Outcome("per-user-limit", "Redis restarted", stock={1: 14400}, per_user_limit=3, oversold=4,
                     limit_exceeded=2, reloads={"200": 30, "503 STOCK_RELOADING": 12, "-1 timeout": 1},
                     reconciliation_exact=True, notes="generation 1: oversold by 4 units; ")
    md = tables.table([passed, failed])
    header = md.splitlines()[0]
    for column in ("oversold", "lost", "applied twice", "limit exceeded", "stranded units", "reloads 200 / 503"):
        assert column in header
    assert "| 1: 14400, 2: 9000 | 24–24.31 | 23.9 | 18000 | 9000 | 0 | 0 | 0 | 0 | 0 | 0 | — |" in md
    assert "| 1: 14400 (limit 3 per user) |" in md
    assert "| 30 / 12, -1 timeout: 1 |" in md
    assert "FAIL: generation 1: oversold by 4 units" in md
    assert passed.passed and not failed.passed


def test_answers_csv_has_a_row_per_request_with_its_order_and_key(tmp_path):
    load = Load("item", 100, [])
    load.started = 100.0
    load.requests = [history.Request(100.5, 100.52, 200, None, "o-1", 2, "user-1", "k1"),
                     history.Request(100.1, 100.9, 503, "DATABASE_UNAVAILABLE", "o-2", 3, "user-2", None)]
    tables.write_answers(load, tmp_path / "answers.csv")
    rows = list(csv.reader((tmp_path / "answers.csv").open()))
    assert rows[0] == tables.ANSWER_COLUMNS
    assert rows[1] == ["0.100", "0.900", "503", "DATABASE_UNAVAILABLE", "800.0", "o-2", "3", "user-2", ""]
    assert rows[2] == ["0.500", "0.520", "200", "", "20.0", "o-1", "2", "user-1", "k1"]


class FakeOrderApi:
    """Sells from a counter; reloads answer 200 and 503 STOCK_RELOADING in turn."""

    def __init__(self, stock: int):
        self.left, self.generation, self.orders = stock, 0, itertools.count()
        self.reloads = itertools.cycle([200, 503])
        self.keys = []

    def __call__(self, environ, start_response):
        method, path = environ["REQUEST_METHOD"], environ["PATH_INFO"]
        body = json.loads(environ["wsgi.input"].read() or b"{}")
        if path == "/order/stock/limit":
            self.keys.append(environ.get("HTTP_IDEMPOTENCY_KEY"))
            if body["quantity"] > self.left:
                return self.answer(start_response, 409, {"code": "SOLD_OUT"})
            self.left -= body["quantity"]
            return self.answer(start_response, 200, {"orderCode": f"o-{next(self.orders)}", "remaining": self.left})
        if path.endswith("/stock/reload"):
            status = next(self.reloads)
            return self.answer(start_response, status, {} if status == 200 else {"code": "STOCK_RELOADING"})
        if method == "PUT":
            self.generation += 1
            self.left = body["quantity"]
            return self.answer(start_response, 200, {"generation": self.generation, "baseline": body["quantity"],
                                                     "perUserLimit": body["perUserLimit"]})
        return self.answer(start_response, 404, {"code": "NOT_FOUND"})

    @staticmethod
    def answer(start_response, status, payload):
        start_response(f"{status} X", [("Content-Type", "application/json")])
        return [json.dumps(payload).encode()]


def test_the_load_the_reset_and_the_reload_storm_against_a_fake_order_api(monkeypatch):
    api = FakeOrderApi(0)
    server = WSGIServer(("127.0.0.1", 0), api, log=None)
    server.start()
    try:
        monkeypatch.setattr(stack, "API", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.setattr(scenarios, "RELOAD_EVERY_S", 0.1)
        draws = draw_orders(200, None, seed="fake")  # 2 s at 100/s
        load = Load("fake", 100, draws)
        run = Run("reload-storm", "fake", load, stock_share=0.4, per_user_limit=None)
        run.record_generation(admin.reset_stock("fake", 160, retry_s=scenarios.RESET_RETRY_S))
        load.sell_out_s = ideal_sell_out(draws, 160, None) / 100
        runner = load.run()
        gevent.sleep(0.05)
        scenarios.reload_storm(run)
        runner.join()
    finally:
        server.stop()
    assert len(load.requests) == 200
    assert Counter(r.status for r in load.requests)[200] > 0 and any(r.code == "SOLD_OUT" for r in load.requests)
    assert all(r.order_code for r in load.requests if r.status == 200)
    # every second order carried its key (concurrent requests may arrive in any order)
    assert Counter(api.keys) == Counter(d.idempotency_key for d in draws)
    assert run.reloads["200"] > 0 and run.reloads["503 STOCK_RELOADING"] > 0
    assert run.generations == {1: history.Generation(160, None)}
    outcome = Outcome("reload-storm", run.description)
    judge.describe_answers(outcome, run)
    assert outcome.sent == 200 and outcome.sold_out_at_s is not None and outcome.fault_window_s


class FreezableOrderApi(FakeOrderApi):
    """While its database is frozen, the first order is answered in doubt and the others refused, each after a
    moment, as order-api's commit and pool timeouts would; `catches` says which freezes catch a commit."""

    def __init__(self, stock: int, catches: list[bool]):
        super().__init__(stock)
        self.catches, self.frozen, self.caught = iter(catches), False, False

    def freeze(self, frozen: bool) -> None:
        self.frozen = frozen
        self.caught = not next(self.catches, False) if frozen else False

    def __call__(self, environ, start_response):
        if self.frozen and environ["PATH_INFO"] == "/order/stock/limit":
            environ["wsgi.input"].read()
            in_doubt, self.caught = not self.caught, True
            gevent.sleep(0.05)
            if in_doubt:
                return self.answer(start_response, 503, {"code": "ORDER_OUTCOME_UNKNOWN", "orderCode": "o-doubt"})
            return self.answer(start_response, 503, {"code": "DATABASE_UNAVAILABLE"})
        return super().__call__(environ, start_response)


def test_api_kill_in_doubt_freezes_until_an_order_is_in_doubt_and_kills_with_nothing_else_in_flight(monkeypatch):
    api = FreezableOrderApi(10_000, catches=[False, True])
    server = WSGIServer(("127.0.0.1", 0), api, log=None)
    server.start()
    steps, in_flight_at_kill, restarted = [], [], []
    # 10 s at 100/s: the freezes must fit in the run, and on a busy box two took more than the 4 s it once had
    draws = draw_orders(1000, None, seed="fake")
    load = Load("fake", 100, draws)

    def signal_component(name, sig):
        steps.append(f"{name} {sig.name}")
        api.freeze(sig == signal.SIGSTOP)

    def control(*args, env=None):
        steps.append(" ".join(args))
        if args == ("kill", "order-api"):
            in_flight_at_kill.append((load.in_flight, load.sending.is_set()))
        if args == ("start", "order-api"):
            restarted.append(True)

    try:
        monkeypatch.setattr(stack, "API", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.setattr(scenarios, "signal_component", signal_component)
        monkeypatch.setattr(stack, "control", control)
        monkeypatch.setattr(scenarios, "redis_counter", lambda item: api.left)
        monkeypatch.setattr(scenarios, "in_doubt_left", lambda item: 0 if restarted else 1)
        monkeypatch.setattr(scenarios, "IN_DOUBT_WAIT_S", 0.5)
        load = Load("fake", 100, draws)
        run = Run("api-kill-in-doubt", "fake", load, stock_share=0.4, per_user_limit=None)
        runner = load.run()
        gevent.sleep(0.05)
        scenarios.api_kill_in_doubt(run)
        runner.join()
    finally:
        server.stop()
    # the first freeze caught no commit and was thawed; the second caught one, and order-api was killed with it
    assert steps == ["mariadb SIGSTOP", "mariadb SIGCONT", "mariadb SIGSTOP", "kill order-api", "mariadb SIGCONT",
                     "start order-api"]
    assert in_flight_at_kill == [(0, False)]  # nothing in flight, nothing sent: only the order in doubt is left
    assert len(load.requests) == 1000  # the orders due while the sending was held went afterwards
    assert sum(r.code == "ORDER_OUTCOME_UNKNOWN" for r in load.requests) == 1
    assert "2× until 1 orders were answered in doubt" in run.description
    assert "none left in doubt" in run.description
    assert run.fault_start < run.fault_end


def test_api_kill_in_doubt_that_catches_no_commit_thaws_the_database_and_kills_nothing(monkeypatch):
    steps = []
    load = Load("fake", 100, [])
    load.started, load.duration_s = time.monotonic(), 60
    monkeypatch.setattr(scenarios, "signal_component", lambda name, sig: steps.append(f"{name} {sig.name}"))
    monkeypatch.setattr(stack, "control", lambda *args, env=None: steps.append(" ".join(args)))
    monkeypatch.setattr(scenarios, "redis_counter", lambda item: 5)
    monkeypatch.setattr(scenarios, "IN_DOUBT_WAIT_S", 0.01)
    monkeypatch.setattr(scenarios, "IN_DOUBT_TRIES", 2)
    run = Run("api-kill-in-doubt", "fake", load, stock_share=0.4, per_user_limit=None)
    monkeypatch.setattr(scenarios, "wait_cooperatively", lambda predicate, timeout_s: predicate())

    with pytest.raises(RuntimeError, match="no order went in doubt in 2 freezes"):
        scenarios.api_kill_in_doubt(run)

    assert steps == ["mariadb SIGSTOP", "mariadb SIGCONT", "mariadb SIGSTOP", "mariadb SIGCONT"]
    assert load.sending.is_set()


def test_orders_settled_in_doubt_are_counted_from_zero_by_a_restarted_order_api(monkeypatch):
    before = {"committed": 8.0, "given_back": 1.0, "recounted": 0.0, "started": 100.0}
    monkeypatch.setattr(probes, "in_doubt_settled",
                        lambda: {"committed": 27.0, "given_back": 1.0, "recounted": 0.0, "started": 100.0})
    assert probes.settled_during(before) == {"committed": 19, "given_back": 0, "recounted": 0}
    # a restarted order-api whose own count passed the old one's is not mistaken for the same process
    monkeypatch.setattr(probes, "in_doubt_settled",
                        lambda: {"committed": 27.0, "given_back": 0.0, "recounted": 0.0, "started": 200.0})
    assert probes.settled_during(before) == {"committed": 27, "given_back": 0, "recounted": 0}


def test_a_waiting_room_flow_refused_is_judged_by_its_users_committed_order():
    load = QueueLoad("fake", 10, [])
    load.requests = [history.Request(0, 1, 200, None, "o-1", 1, "ann"),
                     history.Request(0, 1, 409, "SOLD_OUT", None, 2, "bob"),
                     history.Request(0, 1, 409, "SOLD_OUT", None, 1, "cid")]
    orders = {"o-1": history.Order(1, "ann", 1), "o-2": history.Order(1, "bob", 2)}
    judged = load.judged_requests(orders)
    assert [r.order_code for r in judged] == ["o-1", "o-2", None]
    verdict = history.check(history.History(judged, orders, {"o-1", "o-2"}, {1: history.Generation(5)}, 1, 2, None))
    assert verdict.refused_committed == 1  # bob was told sold out, and has an order


def test_a_waiting_room_that_left_units_unsold_fails():
    sold = Outcome("entry-flood", "flood", reconciliation_exact=True, unsold=0)
    assert sold.passed
    assert not Outcome("entry-flood", "flood", reconciliation_exact=True, unsold=3).passed
