"""The suite's load: orders drawn before it starts, sent at a constant arrival rate (an open model) to the
order-apis in turn, every request recorded; and the flows of a waiting room's and a token gate's real users."""
import dataclasses
import json
import math
import random
import time
from collections import Counter
from dataclasses import dataclass

import gevent
import gevent.event
import gevent.pool
from geventhttpclient import HTTPClient, URL

from flashbench import history, stack
from flashbench.admin import parse_json

MAX_UNITS = 3  # order quantities are drawn uniformly from 1..MAX_UNITS
MEAN_UNITS = (1 + MAX_UNITS) / 2
STOCK_SHARE = 0.4  # default stock: this share of the units the load asks for
TICKETS = "/order/stock/queue/tickets"
TOKENS = "/order/stock/tokens"
JSON_HEADERS = {"Content-Type": "application/json"}
QUEUE_PATIENCE_S = 300.0  # how long a real user of a waiting room keeps entering and polling


@dataclass(frozen=True)
class Draw:
    """One order of the load, drawn before it starts: the faults are timed from the draws."""
    units: int
    user_id: str
    idempotency_key: str | None


def draw_orders(n: int, users: int | None, seed: str) -> list[Draw]:
    """`n` orders of 1..MAX_UNITS units, each from a new user, or from a pool of `users` when there is a limit."""
    rng = random.Random(seed)
    draws = []
    for i in range(n):
        units = rng.randint(1, MAX_UNITS)
        user = f"user-{rng.randrange(users)}" if users else f"user-{rng.getrandbits(64):016x}"
        # every second order carries a key, so that the replay path is under the faults as well
        key = f"{rng.getrandbits(128):032x}" if i % 2 == 0 else None
        draws.append(Draw(units, user, key))
    return draws


def ideal_sell_out(draws: list[Draw], stock: int, per_user_limit: int | None) -> int | None:
    """The index of the first order refused for want of stock, if every order were served in turn with no fault;
    None if the stock lasts. Orders over the per-user limit are refused without taking stock."""
    left, bought = stock, Counter()
    for i, d in enumerate(draws):
        if per_user_limit is not None and bought[d.user_id] + d.units > per_user_limit:
            continue
        if d.units > left:
            return i
        left -= d.units
        bought[d.user_id] += d.units
    return None


def user_pool(stock: int, per_user_limit: int) -> int:
    """Users to draw from so that the limit refuses many orders and the stock still runs out: a user can rarely
    fill the limit exactly (2 of 3 taken leaves room for a 1 only), so stock / limit users could not buy it all;
    twice that many can."""
    return max(1, math.ceil(2 * stock / per_user_limit))


class Load:
    """Orders at a constant arrival rate, in greenlets, recording every request. A scenario may hold the sending
    (`pause`) until the requests in flight are answered, and `resume` it: the orders due meanwhile go at once."""

    def __init__(self, item: str, rate: float, draws: list[Draw]):
        self.item, self.rate, self.draws = item, rate, draws
        self.duration_s = len(draws) / rate
        self.requests: list[history.Request] = []
        # one client per order-api; the orders go to each in turn
        self.clients = [HTTPClient.from_url(URL(url), concurrency=400, connection_timeout=2, network_timeout=10)
                        for url in stack.api_urls()]
        self.started = 0.0
        self.sell_out_s = self.duration_s  # set by the scenario from the draws
        self.pool_size = 2000
        self.in_flight = 0
        self.sending = gevent.event.Event()
        self.sending.set()

    def pause(self) -> None:
        self.sending.clear()

    def resume(self) -> None:
        self.sending.set()

    def client(self, i: int) -> HTTPClient:
        """The client of the i-th order: the order-apis in turn."""
        return self.clients[i % len(self.clients)]

    def _one(self, d: Draw, i: int = 0) -> None:
        body = json.dumps({"itemCode": self.item, "userId": d.user_id, "quantity": d.units})
        headers = {"Content-Type": "application/json"}
        if d.idempotency_key:
            headers["Idempotency-Key"] = d.idempotency_key
        sent = time.monotonic()
        try:
            r = self.client(i).post("/order/stock/limit", body=body, headers=headers)
            payload = parse_json(r.read())
            status, code, order = r.status_code, payload.get("code"), payload.get("orderCode")
        except Exception as e:  # connection refused while order-api is down is an answer of its own kind
            status, code, order = -1, type(e).__name__, None
        finally:
            self.in_flight -= 1
        self.requests.append(history.Request(sent, time.monotonic(), status, code, order, d.units, d.user_id,
                                             d.idempotency_key))

    def judged_requests(self, orders: dict[str, history.Order]) -> list[history.Request]:
        """The requests as the checker judges them, given the committed orders."""
        return self.requests

    def run(self) -> gevent.Greenlet:
        def loop():
            pool = gevent.pool.Pool(self.pool_size)
            self.started = time.monotonic()
            for i, d in enumerate(self.draws):
                delay = self.started + i / self.rate - time.monotonic()
                if delay > 0:
                    gevent.sleep(delay)
                self.sending.wait()
                # counted from the spawn: a request spawned and not yet started is in flight too
                self.in_flight += 1
                pool.spawn(self._one, d, i)
            pool.join()
        return gevent.spawn(loop)


class QueueLoad(Load):
    """Real users of a waiting-room item, arriving as the orders of Load: each enters (again after Retry-After while
    refused 429), polls its ticket until it is admitted or learns the sale is over, then orders with it (the draw's
    Idempotency-Key too). A flow is recorded as one request: the order's answer, or the refusal that ended it (the
    poll's sell-out notice as a 409 SOLD_OUT). Its order code is known only from a 200, so a refused flow is judged
    by its user's committed order, if any: each real user enters once."""

    def __init__(self, item: str, rate: float, draws: list[Draw]):
        super().__init__(item, rate, draws)
        # waiting users hold a greenlet each, not a connection
        self.pool_size = 20_000

    def _one(self, d: Draw, i: int = 0) -> None:
        sent = time.monotonic()
        try:
            status, code, order = self._flow(d, self.client(i))
        except Exception as e:  # connection refused while order-api is down is an answer of its own kind
            status, code, order = -1, type(e).__name__, None
        self.requests.append(history.Request(sent, time.monotonic(), status, code, order, d.units, d.user_id,
                                             d.idempotency_key))

    def _flow(self, d: Draw, client: HTTPClient) -> tuple[int, str | None, str | None]:
        body = json.dumps({"itemCode": self.item, "userId": d.user_id, "quantity": d.units})
        deadline = time.monotonic() + QUEUE_PATIENCE_S
        while time.monotonic() < deadline:
            r = client.post(TICKETS, body=body, headers=JSON_HEADERS)
            payload = parse_json(r.read())
            if r.status_code in (429, 503):
                gevent.sleep(min(5.0, float(r.get("Retry-After") or 1)))
                continue
            if r.status_code != 201:
                return r.status_code, payload.get("code"), None
            ticket = payload
            while ticket.get("status") == "WAITING" and time.monotonic() < deadline:
                gevent.sleep(max(50, ticket.get("pollAfterMillis") or 250) / 1000)
                r = client.get(f"{TICKETS}/{ticket['ticket']}")
                polled = parse_json(r.read())
                if r.status_code == 200:  # a refused poll (503) is tried again
                    ticket = {**polled, "ticket": ticket["ticket"]}
            if ticket.get("status") == "SOLD_OUT":
                return 409, "SOLD_OUT", None
            if ticket.get("status") != "ADMITTED":
                continue  # the admission ended before its user came back: in again at the back, as a user would
            headers = {**JSON_HEADERS, "Queue-Ticket": ticket["ticket"]}
            if d.idempotency_key:
                headers["Idempotency-Key"] = d.idempotency_key
            r = client.post("/order/stock/limit", body=body, headers=headers)
            payload = parse_json(r.read())
            if r.status_code == 409 and payload.get("code") == "ADMISSION_EXPIRED":
                continue
            return r.status_code, payload.get("code"), payload.get("orderCode")
        return -1, "PATIENCE_EXHAUSTED", None

    def judged_requests(self, orders: dict[str, history.Order]) -> list[history.Request]:
        by_user = {order.user_id: code for code, order in orders.items()}
        return [r if r.status == 200 or r.order_code else dataclasses.replace(r, order_code=by_user.get(r.user_id))
                for r in self.requests]


class TokenLoad(QueueLoad):
    """Users of a token-gate item, arriving as the orders of Load: each asks for a purchase token (again after
    Retry-After while refused 429 or 503), then orders with it at once. A flow is recorded as one request, judged
    as a waiting room's (QueueLoad): by its user's committed order when it was refused."""

    def _flow(self, d: Draw, client: HTTPClient) -> tuple[int, str | None, str | None]:
        body = json.dumps({"itemCode": self.item, "userId": d.user_id, "quantity": d.units})
        deadline = time.monotonic() + QUEUE_PATIENCE_S
        while True:
            r = client.post(TOKENS, body=body, headers=JSON_HEADERS)
            payload = parse_json(r.read())
            if r.status_code in (429, 503) and time.monotonic() < deadline:
                gevent.sleep(min(5.0, float(r.get("Retry-After") or 1)))
                continue
            if r.status_code != 201:
                return r.status_code, payload.get("code"), None
            break
        headers = {**JSON_HEADERS, "Authorization": f"Bearer {payload['token']}"}
        if d.idempotency_key:
            headers["Idempotency-Key"] = d.idempotency_key
        r = client.post("/order/stock/limit", body=body, headers=headers)
        payload = parse_json(r.read())
        return r.status_code, payload.get("code"), payload.get("orderCode")


def default_stock(rate: float, duration_s: float, share: float) -> int:
    """`share` of the units the load asks for (rate × duration × mean units)."""
    return max(1, round(share * rate * duration_s * MEAN_UNITS))



LOADS = {"redis": Load, "queue": QueueLoad, "token": TokenLoad}
