"""The flash-sale scenario: exactly REQUESTS orders at TARGET_RPS on POST /order/stock/limit, then stop.

Settings (environment):
  ITEM_CODE      item to order                               (default 1234)
  QUANTITY       units per order                             (default 1)
  REQUESTS       orders to send, then stop by itself         (default 100000)
  TARGET_RPS     arrival rate to aim for                     (default 1000)
  ARRIVALS       smooth | burst                              (default smooth)
  USERS          simulated users (smooth: spread the rate;   (default 100 smooth, 1000 burst)
                 burst: each fires once a second, in lockstep)
  ORDER_PATH     endpoint                                    (default /order/stock/limit)
  SOLD_OUT_OK    1: a 409 SOLD_OUT answer counts as success (spike scenarios with little stock)
  ORDER_API_URLS order-apis to spread the users over, round robin (the cluster topology's two); default: --host
  RESULT_FILE    where to write the run's final figures (JSON) when it ends: answers per HTTP status and the
                 exact totals and percentiles (Locust's own CSVs are written once a second and miss the end)

`smooth` gives every user constant_throughput(TARGET_RPS / USERS), so arrivals are spread evenly; `burst`
gives USERS users constant_pacing(1) spawned at once, as in the published write-ups this project is compared
with: they fire in lockstep, and the client's own queue shows up as latency.
"""
import itertools
import json
import os
import time
import uuid
from collections import Counter

import gevent
from locust import FastHttpUser, constant_pacing, constant_throughput, events, task
from locust.exception import StopUser

from flashbench.settings import ScenarioSettings

PERCENTILES = (0.5, 0.66, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999)

SETTINGS = ScenarioSettings.from_env(os.environ)

_issued = 0
_completed = 0
_last_answer_at = 0.0
_statuses: Counter = Counter()
_hosts = itertools.cycle(SETTINGS.hosts) if SETTINGS.hosts else None


def _wait_time():
    if SETTINGS.arrivals == "burst":
        return constant_pacing(1)
    return constant_throughput(SETTINGS.per_user_rate)


class OrderUser(FastHttpUser):
    wait_time = _wait_time()
    # one connection per user, kept alive, as a browser or an app would
    concurrency = 1

    def __init__(self, environment):
        # each user keeps one order-api, as a client behind a connection-level load balancer would
        if _hosts is not None:
            self.host = next(_hosts)
        super().__init__(environment)

    @task
    def place_order(self):
        global _issued
        if _issued >= SETTINGS.requests:
            raise StopUser()
        _issued += 1
        body = {"itemCode": SETTINGS.item_code, "userId": str(uuid.uuid4()), "quantity": SETTINGS.quantity}
        with self.client.post(SETTINGS.order_path, json=body, name="POST " + SETTINGS.order_path,
                              catch_response=True) as response:
            _statuses[response.status_code] += 1
            if response.status_code == 200:
                response.success()
            elif response.status_code == 409 and SETTINGS.sold_out_ok and b"SOLD_OUT" in (response.content or b""):
                response.success()
            else:
                response.failure(f"HTTP {response.status_code}: {(response.text or '')[:120]}")
        _response_done(self.environment)


def _response_done(environment):
    global _completed, _last_answer_at
    _completed += 1
    _last_answer_at = time.time()
    if _completed == SETTINGS.requests:
        # every request has its answer: end the run (from another greenlet, not from inside a user)
        gevent.spawn(environment.runner.quit)


@events.quitting.add_listener
def _write_result(environment, **_kwargs):
    if not SETTINGS.result_file:
        return
    total = environment.stats.total
    elapsed = (total.last_request_timestamp or 0) - (total.start_time or 0)
    result = {
        "issued": _issued,
        "completed": _completed,
        "statuses": {str(k): v for k, v in sorted(_statuses.items())},
        "requests": total.num_requests,
        "failures": total.num_failures,
        "average_ms": total.avg_response_time,
        "max_ms": total.max_response_time,
        "percentiles_ms": {f"{p * 100:g}%": total.get_response_time_percentile(p) for p in PERCENTILES},
        # first request to last answer: the rate the server was offered and answered
        "achieved_rps": total.num_requests / elapsed if elapsed > 0 else 0.0,
        # wall clock (epoch s) of the last answer: the drain is measured from it
        "last_answer_at": _last_answer_at,
    }
    with open(SETTINGS.result_file, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
