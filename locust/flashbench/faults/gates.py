"""The faults of the gates that hold units for users: a flood of a waiting room's entries under throwaway ids,
and purchase tokens hoarded until their holds expire in a crowd; with the order-api settings each needs."""
import json
import os
import time
from collections import Counter

import gevent
from geventhttpclient import HTTPClient, URL

from flashbench import stack
from flashbench.admin import answer_key, parse_json
from flashbench.faults.load import JSON_HEADERS, TICKETS, TOKENS
from flashbench.faults.run import Run, at

FLOOD_CLIENTS = 32


def entry_flood(run: Run) -> None:
    """Throwaway user ids enter the item's waiting room from FLOOD_CLIENTS connections, as fast as they are
    answered, from 10 % to 60 % of the run, and never order: the room's bound refuses what is past it."""
    load = run.load
    at(load, 0.1 * load.duration_s)
    run.fault_start = time.monotonic()
    end = load.started + 0.6 * load.duration_s
    answers: Counter = Counter()

    def bot(k: int) -> None:
        client = HTTPClient.from_url(URL(stack.API), concurrency=1, connection_timeout=2, network_timeout=10)
        n = 0
        while time.monotonic() < end:
            body = json.dumps({"itemCode": run.item, "userId": f"bot-{k}-{n}", "quantity": 1})
            n += 1
            try:
                r = client.post(TICKETS, body=body, headers=JSON_HEADERS)
                answers[answer_key(r.status_code, parse_json(r.read()))] += 1
            except Exception as e:
                answers[f"-1 {type(e).__name__}"] += 1
        client.close()

    gevent.joinall([gevent.spawn(bot, k) for k in range(FLOOD_CLIENTS)])
    run.fault_end = time.monotonic()
    run.description = (f"{sum(answers.values())} entries under throwaway ids from {FLOOD_CLIENTS} connections ("
                       + ", ".join(f"{k}: {v}" for k, v in sorted(answers.items())) + ")")


def hoards_expire_in_crowd(run: Run) -> None:
    """Tokens for a fifth of the stock taken at the start under throwaway ids and never redeemed; the crowd buys the
    rest and is then answered SOLD_OUT, from each order-api's memory of the sell-out; the holds expire
    (TOKEN_SCENARIO_ENV) and their units come back while the crowd still asks: they must be sold to it, none left
    unsold (issue 28: a memory of the sell-out must never undersell)."""
    load = run.load
    hoard = max(HOARD_UNITS, run.generations[max(run.generations)].baseline // 5)
    at(load, 0.02 * load.duration_s)
    run.fault_start = time.monotonic()
    client = HTTPClient.from_url(URL(stack.API), concurrency=1, connection_timeout=2, network_timeout=10)
    held, answers = 0, Counter()
    while held < hoard:
        units = min(HOARD_UNITS, hoard - held)
        body = json.dumps({"itemCode": run.item, "userId": f"bot-hoard-{sum(answers.values())}", "quantity": units})
        r = client.post(TOKENS, body=body, headers=JSON_HEADERS)
        answers[answer_key(r.status_code, parse_json(r.read()))] += 1
        if r.status_code == 201:
            held += units
        elif r.status_code == 409:
            break
    client.close()
    # the units come back after the token's time to live and its grace, at the next sweep
    run.fault_end = time.monotonic() + TOKEN_HELD_S
    run.figures = {"hoarded_units": held, "units_back_at_s": round(run.fault_end - load.started, 2)}
    issued = ", ".join(f"{k}: {v}" for k, v in sorted(answers.items()))
    run.description = (f"tokens for {held} units never redeemed ({issued}), their holds expiring "
                       f"{TOKEN_HELD_S:.0f} s later, during the crowd")
    gevent.sleep(max(0.0, run.fault_end - time.monotonic()))
    sold_out = [r.answered_at for r in load.requests if r.code == "SOLD_OUT"]
    run.figures["sold_out_before_back"] = bool(sold_out) and min(sold_out) < run.fault_end


def order_api_with(env: dict[str, str]):
    """order-api restarted with these settings, for one scenario."""
    def restart() -> None:
        stack.control("stop", "order-api")
        stack.control("start", "order-api", env={**{k: v for k, v in os.environ.items() if k not in QUEUE_SCENARIO_ENV},
                                         **env})
    return restart


# the entry-flood scenario's order-api: admissions of 10 s instead of 30, so that the rounds in which bots' unused
# admissions hold the units fit in the run, and one waiting ticket per unit left instead of ten, so that the room's
# bound binds under the flood one client process sends on two shared cores (~25 entries a second was seen)
QUEUE_SCENARIO_ENV = {"FLASHSTOCK_QUEUE_ADMISSION_TTL": "10s", "FLASHSTOCK_QUEUE_WAITING_PER_UNIT": "1"}
# the units-back scenario's order-api: tokens that expire within the run, after the crowd has sold the rest out
TOKEN_SCENARIO_ENV = {"FLASHSTOCK_TOKEN_TTL": "10s", "FLASHSTOCK_TOKEN_GRACE": "1s"}
TOKEN_HELD_S = 12.0  # TTL, grace and a sweep (1 s)
HOARD_UNITS = 2
