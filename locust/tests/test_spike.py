"""The spike's user flows against a scripted server: what each answer counts as, and what makes a run correct."""
import json

import pytest

from flashbench import spike


class Answer:
    def __init__(self, status: int, body: dict):
        self.status_code = status
        self._body = json.dumps(body).encode()

    def read(self) -> bytes:
        return self._body


class ScriptedClient:
    """Answers each request with the next scripted answer for its method and path; records what was sent."""

    def __init__(self, script: dict):
        self.script = {key: list(answers) for key, answers in script.items()}
        self.sent = []

    def _answer(self, method: str, path: str, headers: dict | None) -> Answer:
        self.sent.append((method, path, headers or {}))
        key = (method, spike.TICKETS + "/*" if path.startswith(spike.TICKETS + "/") else path)
        return self.script[key].pop(0)

    def post(self, path, body, headers=None):
        return self._answer("POST", path, headers)

    def get(self, path, headers=None):
        return self._answer("GET", path, headers)


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch):
    monkeypatch.setattr(spike.gevent, "sleep", lambda seconds: None)


BODY = json.dumps({"itemCode": "i", "userId": "u", "quantity": 1})
SOLD_OUT = {"code": "SOLD_OUT", "remaining": 0}


def test_token_flow_orders_with_the_token_it_was_issued():
    client = ScriptedClient({("POST", spike.TOKENS): [Answer(201, {"token": "t.k.n"})],
                             ("POST", spike.ORDER): [Answer(200, {"orderCode": "o"})]})
    assert spike.token_flow(client, BODY) == ("ok", 2)
    assert client.sent[1][2]["Authorization"] == "Bearer t.k.n"


def test_token_flow_sold_out_at_issue_sends_no_order():
    client = ScriptedClient({("POST", spike.TOKENS): [Answer(409, SOLD_OUT)]})
    assert spike.token_flow(client, BODY) == ("SOLD_OUT", 1)


def test_queue_flow_polls_until_admitted_then_orders_with_its_ticket():
    client = ScriptedClient({
        ("POST", spike.TICKETS): [Answer(201, {"ticket": "tk", "status": "WAITING", "pollAfterMillis": 100})],
        ("GET", spike.TICKETS + "/*"): [Answer(200, {"status": "WAITING", "pollAfterMillis": 100}),
                                        Answer(200, {"status": "ADMITTED"})],
        ("POST", spike.ORDER): [Answer(200, {"orderCode": "o"})]})
    assert spike.queue_flow(client, BODY) == ("ok", 4)
    assert client.sent[-1][2]["Queue-Ticket"] == "tk"


def test_queue_flow_that_learns_the_sell_out_while_waiting_is_sold_out():
    client = ScriptedClient({
        ("POST", spike.TICKETS): [Answer(201, {"ticket": "tk", "status": "WAITING"})],
        ("GET", spike.TICKETS + "/*"): [Answer(200, {"status": "SOLD_OUT"})]})
    assert spike.queue_flow(client, BODY) == ("SOLD_OUT", 2)


def test_an_expired_admission_or_an_unexpected_problem_is_an_error_named_by_its_code():
    expired = ScriptedClient({
        ("POST", spike.TICKETS): [Answer(201, {"ticket": "tk", "status": "WAITING"})],
        ("GET", spike.TICKETS + "/*"): [Answer(200, {"status": "EXPIRED"})]})
    assert spike.queue_flow(expired, BODY) == ("ticket EXPIRED", 2)
    refused = ScriptedClient({("POST", spike.ORDER): [Answer(503, {"code": "OVERLOADED"})]})
    assert spike.one_request(spike.ORDER)(refused, BODY) == ("503 OVERLOADED", 1)


def result(ok: int, sold_out: int, errors: int = 0, units: int = 100, reconciled: bool = True):
    return spike.SpikeResult("token", ok + sold_out + errors, 1, "i", ok, sold_out, errors, 0, 1, 1, 1, 1, 1, 1, 1,
                             units_ordered=units, reconciled=reconciled)


def test_a_run_is_correct_only_with_exactly_the_stock_sold_and_reconciled():
    assert result(100, 400).correct(100)
    assert not result(101, 399, units=101).correct(100), "oversold"
    assert not result(99, 400, errors=1, units=99).correct(100), "an error"
    assert not result(100, 400, reconciled=False).correct(100), "not reconciled"
    assert not result(100, 400, units=99).correct(100), "answers and orders disagree"
    assert result(50, 0, units=50).correct(100), "fewer users than units: every one buys"


def test_summary_counts_successes_and_sold_out_answers_per_run():
    table = spike.summarize([result(100, 400), result(100, 400)], 100)
    assert "| token | 500 | 2 | 2 |" in table
    assert "| 100/100 | 400/400 | 0/0 |" in table
