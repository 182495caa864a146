"""The reconciliation report from the command line: waits until the pipeline is drained (or the wait runs
out), writes the report as JSON and Markdown, and exits 0 only when every invariant holds.

    scripts/reconcile [ITEM] [--wait 30] [--out DIR] [--repair-redis]

The report itself is order-api's GET /admin/reconciliation (admin token from STOCK_ADMIN_TOKEN).
--repair-redis sets each drifted item's Redis counter to baseline − Σ orders (order-api refuses while orders
for the item are still arriving), then reports again; an oversold item it leaves alone, since no counter can
match it.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import requests

from flashbench import admin, stack



def fetch(base_url: str, item: str | None) -> dict:
    params = {"itemCode": item} if item else {}
    r = requests.get(f"{base_url}/admin/reconciliation", params=params, headers=admin.headers(), timeout=30)
    if r.status_code != 200:
        raise SystemExit(f"reconciliation request failed: HTTP {r.status_code}: {r.text[:300]}")
    return r.json()


def wait_for_drain(base_url: str, item: str | None, wait_s: float) -> dict:
    deadline = time.monotonic() + wait_s
    while True:
        report = fetch(base_url, item)
        if report.get("drained") or time.monotonic() >= deadline:
            return report
        time.sleep(0.25)


def repair_redis(base_url: str, report: dict, wait_s: float) -> list[str]:
    """Reloads the Redis counter of every item whose first invariant failed; returns what it did.

    The reload is fenced against orders in flight; order-api answers 503 STOCK_RELOADING while another reload
    of the item runs, which is retried until the wait runs out. An oversold item's counter is set to its
    negative baseline − Σ orders (it sells nothing more), and not-oversold still fails the report."""
    done = []
    for item in report.get("items", []):
        drift = _invariant(item, "redis-matches-orders")
        if drift and not drift["holds"]:
            code = item["itemCode"]
            deadline = time.monotonic() + wait_s
            while True:
                r = requests.post(f"{base_url}/admin/items/{code}/stock/reload", headers=admin.headers(), timeout=30)
                if r.status_code == 503 and "STOCK_RELOADING" in r.text and time.monotonic() < deadline:
                    time.sleep(0.5)
                    continue
                if r.status_code != 200:
                    raise SystemExit(f"repair of {code} refused: HTTP {r.status_code}: {r.text[:300]}")
                break
            done.append(f"repaired {code}: Redis counter set to {r.json().get('redisRemaining')} "
                        f"(was {drift['actual']})")
    return done


def _invariant(item: dict, name: str) -> dict | None:
    return next((i for i in item.get("invariants", []) if i["name"] == name), None)


def failures(report: dict) -> list[str]:
    out = []
    for item in report.get("items", []):
        for inv in item.get("invariants", []):
            if not inv["holds"]:
                out.append(f"{item['itemCode']}: {inv['name']} failed: expected {_bound(inv)}{inv['expected']}, "
                           f"actual {inv['actual']} (difference {inv['difference']}); {inv.get('detail') or ''}"
                           .rstrip("; "))
    return out


def _bound(inv: dict) -> str:
    """'at most ' for an upper bound such as not-oversold; reports from before the field are all equalities."""
    return "at most " if inv.get("comparison") == "at-most" else ""


def _verdict(report: dict) -> str:
    """The headline; an oversold item is named in it, being the one failure no repair undoes."""
    if report.get("exact"):
        return "EXACT: every invariant holds"
    oversold = [f"{item['itemCode']} oversold by {inv['difference']} units"
                for item in report.get("items", []) for inv in item.get("invariants", [])
                if inv["name"] == "not-oversold" and not inv["holds"]]
    return "DIVERGED" + (": " + "; ".join(oversold) if oversold else "")


def _v(value) -> str:
    return "—" if value is None else f"{value:,}" if isinstance(value, int) else str(value)


def to_markdown(report: dict) -> str:
    kafka = report.get("kafka", {})
    lines = [
        f"# Reconciliation {report.get('generatedAt', '')}",
        "",
        f"**{_verdict(report)}** — pipeline "
        f"{'drained' if report.get('drained') else 'NOT drained'}; topic `{kafka.get('topic')}`: end offsets "
        f"{_v(kafka.get('endOffsets'))}, group `{kafka.get('group')}` committed {_v(kafka.get('committedOffsets'))}, "
        f"lag {_v(kafka.get('lag'))}; dead-letter records {_v(kafka.get('deadLetters'))}",
        "",
        "| item | gen | baseline | Redis left | orders | Σ qty | baseline − Σ | outbox rows | unsent | sent | DEAD "
        "| partition lag | stock DB qty | applied | anomalies |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for item in report.get("items", []):
        # "stock" is null until stock-consumer applied the item's first event
        o, ob, st = item.get("orders", {}), item.get("outbox", {}), item.get("stock") or {}
        lines.append("| " + " | ".join([
            item["itemCode"], _v(item.get("generation")), _v(item.get("baseline")), _v(item.get("redisRemaining")),
            _v(o.get("count")), _v(o.get("quantity")), _v(item.get("expectedRemaining")), _v(ob.get("count")),
            _v(ob.get("unsent")), _v(ob.get("sent")), _v(ob.get("dead")), _v(item.get("partitionLag")),
            _v(st.get("quantity")), _v(st.get("eventsApplied")), _v(st.get("anomalies"))]) + " |")
    rooms = [item for item in report.get("items", []) if item.get("waitingRoom")]
    if rooms:
        # admissions hold no units of the Redis counter: they are named, not subtracted
        lines += ["", "| waiting-room item | waiting tickets | unused admissions | their units |", "|---|---:|---:|---:|"]
        lines += [f"| {item['itemCode']} | {_v(item['waitingRoom'].get('waiting'))} | "
                  f"{_v(item['waitingRoom'].get('admittedUnused'))} | {_v(item['waitingRoom'].get('admittedUnits'))} |"
                  for item in rooms]
    held = [item for item in report.get("items", []) if (item.get("unusedTokens") or {}).get("count")]
    if held:
        lines += [""] + [f"Unused purchase tokens of {item['itemCode']}: {_v(item['unusedTokens']['count'])} hold "
                         f"{_v(item['unusedTokens']['units'])} units (Redis is lower by them; they are no order yet, "
                         f"and come back when the tokens expire)" for item in held]
    lines += ["", "| item | invariant | holds | expected | actual | difference | detail |",
              "|---|---|---|---:|---:|---:|---|"]
    for item in report.get("items", []):
        for inv in item.get("invariants", []):
            lines.append(f"| {item['itemCode']} | {inv['name']} | {'yes' if inv['holds'] else '**NO**'} | "
                         f"{_bound(inv)}{_v(inv['expected'])} | {_v(inv['actual'])} | {_v(inv['difference'])} | "
                         f"{(inv.get('detail') or '').replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/reconcile", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("item", nargs="?", help="item code (default: every item with a baseline)")
    p.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the pipeline to drain")
    p.add_argument("--out", type=Path, default=stack.ROOT / "results" / "reconciliation", help="folder for the report")
    p.add_argument("--repair-redis", action="store_true", help="fix Redis drift (only when asked)")
    p.add_argument("--url", default=stack.API_URL)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)

    report = wait_for_drain(a.url, a.item, a.wait)
    if a.repair_redis:
        for line in repair_redis(a.url, report, a.wait):
            print(line)
        report = fetch(a.url, a.item)

    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "reconciliation.json").write_text(json.dumps(report, indent=2))
    markdown = to_markdown(report)
    (a.out / "reconciliation.md").write_text(markdown)
    print(markdown)
    failed = failures(report)
    for line in failed:
        print(f"FAILED {line}", file=sys.stderr)
    return 0 if report.get("exact") and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
