"""order-api's admin side as every tool uses it: the admin token's header, a client that asks the first order-api
that answers, and the stock reset (PUT /admin/items/{item}/stock) a run starts from."""
import json
import os
import time

import gevent
from geventhttpclient import HTTPClient, URL

from flashbench import stack

DEV_TOKEN = "dev-admin-token"

_clients: dict[str, HTTPClient] = {}


def headers() -> dict:
    """The admin token's Authorization header (STOCK_ADMIN_TOKEN, the development token by default)."""
    return {"Authorization": "Bearer " + os.environ.get("STOCK_ADMIN_TOKEN", DEV_TOKEN)}


def parse_json(raw: bytes) -> dict:
    try:
        payload = json.loads(raw or b"{}")
    except ValueError:  # a proxy's or container's HTML error page
        return {}
    return payload if isinstance(payload, dict) else {}


def call(method: str, path: str, body: dict | None = None, urls: list[str] | None = None) -> tuple[int, dict]:
    """An admin request, cooperatively under gevent (a load keeps going meanwhile), to the first order-api that
    answers (of `urls`, by default every order-api of the stack); (-1, {code: error}) if none answered."""
    request_headers = {**headers(), "Content-Type": "application/json"}
    answer: tuple[int, dict] = (-1, {})
    for url in urls or stack.api_urls():
        # a reload waits for the takes in flight (up to the take deadline and the commit timeout)
        client = _clients.setdefault(
            url, HTTPClient.from_url(URL(url), concurrency=32, connection_timeout=5, network_timeout=60))
        try:
            r = client.request(method, path, body=json.dumps(body) if body is not None else b"",
                               headers=request_headers)
            return r.status_code, parse_json(r.read())
        except Exception as e:
            answer = (-1, {"code": type(e).__name__})
    return answer


def answer_key(status: int, payload: dict) -> str:
    return str(status) + (f" {payload['code']}" if status != 200 and payload.get("code") else "")


def reset_stock(item: str, quantity: int, per_user_limit: int | None = None, gate: str = "redis",
                retry_s: float = 0.0, urls: list[str] | None = None) -> dict:
    """Starts a new generation of the item; returns order-api's view of it (generation, baseline, ...).

    Retried for `retry_s` while order-api cannot do it yet: Redis just restarted, a rebuild of the counter holds
    the item (503), or order-api itself is restarting (no answer)."""
    deadline = time.monotonic() + retry_s
    while True:
        status, payload = call("PUT", f"/admin/items/{item}/stock",
                               {"quantity": quantity, "perUserLimit": per_user_limit, "gate": gate}, urls)
        if status == 200:
            return payload
        if status not in (503, -1) or time.monotonic() > deadline:
            raise RuntimeError(f"stock reset of {item} refused: {answer_key(status, payload)} {payload}")
        gevent.sleep(0.5)
