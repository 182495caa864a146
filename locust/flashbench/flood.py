"""A flood of waiting-room entries under throwaway user ids, then real users: does the engine stay bounded, and are
the real users still admitted and sold to?

    scripts/flood [--entries 100000] [--clients 64] [--stock 100] [--real-users 20] [--out DIR]

One item of the waiting-room gate (`--stock` units) is flooded with `--entries` entries (1 unit, a new user id
each, never ordered: hoarders) from `--clients` concurrent connections, all from one client address. Then
`--real-users` users, each from an address of its own, enter (retrying after `Retry-After` while the room is
full or their address is limited), poll their ticket until it is admitted and order once. Client addresses are
sent in `X-Forwarded-For`: order-api must run with `SERVER_FORWARD_HEADERS_STRATEGY=native`, so that it believes
them from 127.0.0.1 (Tomcat trusts loopback as an internal proxy). The rate limit is whatever order-api runs with
(`FLASHSTOCK_RATE_LIMIT_ENABLED`): on, the flood meets it; off, it meets the room's bound.

Writes to the out folder: entries.csv.gz (every flood entry: ms since the flood's start, latency in ms, status,
problem code), real-users.csv (each real user's entries, polls, answer and seconds to the order), flood.json (the
summary: Redis's used_memory before and after, the entries' answers and latency percentiles, the room's size, the
real users' outcome, the item's reconciliation). Exits non-zero unless every real user was sold to and the
reconciliation is exact.
"""
import argparse
import collections
import csv
import datetime as dt
import gzip
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import gevent
import gevent.pool
from geventhttpclient import HTTPClient, URL

from flashbench import admin, reconcile, stack
from flashbench.spike import percentile

TICKETS = "/order/stock/queue/tickets"
ORDER = "/order/stock/limit"
JSON = {"Content-Type": "application/json"}
FLOOD_ADDRESS = "203.0.113.66"  # documentation range (RFC 5737): one bot address
REAL_PATIENCE_S = 600.0  # how long a real user keeps trying before the tool calls it a failure
MAX_RETRY_WAIT_S = 5.0  # a real user retries after Retry-After, but polls at least this often


def redis_info(port: str) -> dict:
    """INFO memory and keyspace of the stack's Redis, as a dict."""
    out = subprocess.run(["redis-cli", "-p", port, "INFO", "memory"], capture_output=True, text=True, check=True)
    return dict(line.split(":", 1) for line in out.stdout.splitlines() if ":" in line)


def redis_call(port: str, *args: str) -> str:
    return subprocess.run(["redis-cli", "-p", port, *args], capture_output=True, text=True, check=True).stdout.strip()


def waiting_tickets(port: str, item: str) -> int:
    generation = redis_call(port, "GET", f"stock:{{{item}}}:gen")
    return int(redis_call(port, "ZCARD", f"stock:{{{item}}}:queue:{generation}:waiting") or 0)


def problem_code(content: bytes) -> str:
    try:
        return json.loads(content).get("code") or ""
    except (ValueError, AttributeError):
        return ""


def flood(base: str, item: str, entries: int, clients: int) -> tuple[list[tuple], float]:
    """`entries` entries from `clients` connections as fast as they answer; every answer as (sent ms, ms, status,
    code)."""
    url = URL(base)
    answers: list[tuple] = []
    counter = iter(range(entries))
    run = uuid.uuid4().hex[:6]
    started = time.perf_counter()

    def client_loop() -> None:
        client = HTTPClient(url.host, url.port, concurrency=1, connection_timeout=10, network_timeout=30)
        headers = {**JSON, "X-Forwarded-For": FLOOD_ADDRESS}
        try:
            for n in counter:
                body = json.dumps({"itemCode": item, "userId": f"bot-{run}-{n}", "quantity": 1})
                sent = time.perf_counter()
                try:
                    r = client.post(TICKETS, body=body, headers=headers)
                    content = r.read()
                    status, code = r.status_code, problem_code(content) if r.status_code != 201 else ""
                except Exception as e:  # a transport failure is an answer of its own kind
                    status, code = -1, type(e).__name__
                answers.append(((sent - started) * 1000, (time.perf_counter() - sent) * 1000, status, code))
        finally:
            client.close()

    gevent.joinall([gevent.spawn(client_loop) for _ in range(clients)])
    return answers, time.perf_counter() - started


def real_user(base: str, item: str, n: int) -> dict:
    """One real user from an address of its own: enters (retrying while refused 429), polls until admitted, orders."""
    url = URL(base)
    client = HTTPClient(url.host, url.port, concurrency=1, connection_timeout=10, network_timeout=30)
    headers = {**JSON, "X-Forwarded-For": f"198.51.100.{n + 1}"}
    body = json.dumps({"itemCode": item, "userId": f"real-{n}", "quantity": 1})
    started = time.monotonic()
    deadline = started + REAL_PATIENCE_S
    record = {"user": f"real-{n}", "entries": 0, "refusals": "", "polls": 0, "end": "", "seconds": 0.0}
    refusals = collections.Counter()
    try:
        ticket = None
        while ticket is None and time.monotonic() < deadline:
            r = client.post(TICKETS, body=body, headers=headers)
            content = r.read()
            record["entries"] += 1
            if r.status_code == 201:
                ticket = json.loads(content)
            elif r.status_code == 429:
                refusals[problem_code(content)] += 1
                gevent.sleep(min(MAX_RETRY_WAIT_S, float(r.get("Retry-After") or 1)))
            else:
                record["end"] = f"entry {r.status_code} {problem_code(content)}"
                return record
        while ticket is not None and ticket["status"] == "WAITING" and time.monotonic() < deadline:
            gevent.sleep(max(50, ticket.get("pollAfterMillis") or 250) / 1000)
            r = client.get(f"{TICKETS}/{ticket['ticket']}")
            record["polls"] += 1
            ticket = {**json.loads(r.read()), "ticket": ticket["ticket"]}
        if ticket is None or ticket["status"] != "ADMITTED":
            record["end"] = "gave up" if ticket is None else f"ticket {ticket['status']}"
            return record
        r = client.post(ORDER, body=body, headers={**headers, "Queue-Ticket": ticket["ticket"]})
        content = r.read()
        record["end"] = "ordered" if r.status_code == 200 else f"order {r.status_code} {problem_code(content)}"
        return record
    finally:
        record["refusals"] = ";".join(f"{code}:{count}" for code, count in sorted(refusals.items()))
        record["seconds"] = round(time.monotonic() - started, 3)
        client.close()


def latency_summary(rows: list[tuple]) -> dict:
    latencies = sorted(row[1] for row in rows)
    if not latencies:
        return {"count": 0}
    return {"count": len(latencies), "p50_ms": round(percentile(latencies, 50), 2),
            "p99_ms": round(percentile(latencies, 99), 2), "p999_ms": round(percentile(latencies, 99.9), 2),
            "max_ms": round(latencies[-1], 2)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/flood", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--entries", type=int, default=100_000)
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--stock", type=int, default=100)
    p.add_argument("--real-users", type=int, default=20)
    p.add_argument("--drain-wait", type=float, default=120.0)
    p.add_argument("--url", default=stack.API_URL)
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    redis_port = os.environ.get("REDIS_PORT", "6379")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or stack.ROOT / "results" / f"{stamp}-flood"
    out.mkdir(parents=True, exist_ok=True)
    item = f"flood-{uuid.uuid4().hex[:8]}"
    admin.reset_stock(item, a.stock, gate="queue", urls=[a.url])

    before = redis_info(redis_port)
    answers, flood_s = flood(a.url, item, a.entries, a.clients)
    after = redis_info(redis_port)
    waiting = waiting_tickets(redis_port, item)
    with gzip.open(out / "entries.csv.gz", "wt", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sent_ms", "latency_ms", "status", "code"])
        w.writerows((f"{s:.1f}", f"{lat:.2f}", status, code) for s, lat, status, code in answers)
    outcomes = collections.Counter(f"{status} {code}".strip() for _, _, status, code in answers)
    print(f"[flood] {len(answers)} entries in {flood_s:.1f} s: {dict(outcomes)}; {waiting} waiting; Redis "
          f"used_memory {int(before['used_memory']) / 2**20:.2f} -> {int(after['used_memory']) / 2**20:.2f} MiB",
          file=sys.stderr)

    real = [g.value for g in gevent.joinall([gevent.spawn(real_user, a.url, item, n) for n in range(a.real_users)])]
    with (out / "real-users.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(real[0]))
        w.writeheader()
        w.writerows(real)
    sold = sum(r["end"] == "ordered" for r in real)
    print(f"[flood] real users: {sold} of {len(real)} ordered; slowest {max(r['seconds'] for r in real):.1f} s",
          file=sys.stderr)

    report = reconcile.wait_for_drain(a.url, item, a.drain_wait)
    items = report.get("items", [])
    ordered = items[0]["orders"]["quantity"] if items else -1
    exact = bool(report.get("exact")) and bool(items) and not reconcile.failures(report)
    summary = {
        "item": item, "stock": a.stock, "entries": len(answers), "clients": a.clients, "flood_seconds": round(flood_s, 2),
        "entries_per_second": round(len(answers) / flood_s, 1), "answers": dict(outcomes),
        "latency_all": latency_summary(answers),
        "latency_accepted": latency_summary([r for r in answers if r[2] == 201]),
        "latency_refused": latency_summary([r for r in answers if r[2] == 429]),
        "waiting_after_flood": waiting,
        "redis_used_memory_before": int(before["used_memory"]), "redis_used_memory_after": int(after["used_memory"]),
        "redis_used_memory_growth": int(after["used_memory"]) - int(before["used_memory"]),
        "redis_maxmemory_policy": after.get("maxmemory_policy"),
        "real_users": len(real), "real_users_ordered": sold,
        "real_users_seconds_max": max(r["seconds"] for r in real),
        "real_users_refusals": dict(sum((collections.Counter(dict((kv.split(":")[0], int(kv.split(":")[1]))
                                                                      for kv in r["refusals"].split(";") if kv))
                                         for r in real), collections.Counter())),
        "units_ordered": ordered, "reconciled": exact,
    }
    (out / "flood.json").write_text(json.dumps(summary, indent=1))
    (out / "reconciliation.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(summary, indent=1))
    return 0 if sold == len(real) and exact and ordered == sold else 1


if __name__ == "__main__":
    sys.exit(main())
