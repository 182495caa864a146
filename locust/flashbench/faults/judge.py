"""The verdict on a run: what the clients saw, and the whole history of requests judged against what the orders
database, the stock database and Redis hold afterwards (flashbench/history.py), with the reconciliation."""
import json
import subprocess
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from flashbench import history, stack
from flashbench.polling import wait_until
from flashbench.faults import probes
from flashbench.faults.run import Run, Scenario

FINDINGS_IN_OUTCOME = 20  # faults.json keeps the first ones; findings.txt has them all


@dataclass
class Outcome:
    scenario: str
    faults: str
    stock: dict = field(default_factory=dict)  # generation → baseline
    per_user_limit: int | None = None
    fault_window_s: list | None = None  # [start, end] after the load started
    sold_out_at_s: float | None = None  # the first SOLD_OUT, after the load started
    sent: int = 0
    ok: int = 0
    statuses: dict = field(default_factory=dict)
    oversold: int = 0
    lost: int = 0
    applied_twice: int = 0
    limit_exceeded: int = 0
    refused_committed: int = 0
    stranded: int | None = None
    surplus: int | None = None
    unsold: int | None = None  # a waiting room's units no real user bought (entry-flood must sell them all)
    committed_unanswered: int = 0
    reloads: dict = field(default_factory=dict)
    redis_restored: dict = field(default_factory=dict)
    recovery_s: float | None = None
    first_ok_after_fault_s: float | None = None
    slowest_error_ms: float | None = None
    in_doubt: dict = field(default_factory=dict)
    reconciliation_exact: bool = False
    findings: list = field(default_factory=list)
    notes: str = ""
    figures: dict = field(default_factory=dict)  # what a cluster fault measured
    latency_ms: dict = field(default_factory=dict)  # accepted → applied, by when the order was committed
    dead_rows: int | None = None  # the item's outbox rows the relay gave up on (DEAD)

    @property
    def passed(self) -> bool:
        return (self.oversold == 0 and self.lost == 0 and self.applied_twice == 0 and self.limit_exceeded == 0
                and self.refused_committed == 0 and self.reconciliation_exact and not self.unsold
                and not self.dead_rows)


def describe_answers(outcome: Outcome, run: Run) -> None:
    """What the clients saw: answers by status, the first sell-out, the slowest refusal, the first 200 after
    the fault (by when it was answered: a request sent during the fault may be the first to succeed after it)."""
    requests, started = run.load.requests, run.load.started
    outcome.sent = len(requests)
    outcome.ok = sum(r.status == 200 for r in requests)
    outcome.statuses = dict(sorted(Counter(str(r.status) + (f" {r.code}" if r.code else "")
                                           for r in requests).items()))
    sold_out = [r.sent_at for r in requests if r.code == "SOLD_OUT"]
    outcome.sold_out_at_s = round(min(sold_out) - started, 2) if sold_out else None
    errors = [r.answered_at - r.sent_at for r in requests if r.status not in (200, -1)]
    outcome.slowest_error_ms = round(max(errors) * 1000, 1) if errors else None
    if run.fault_start is not None and run.fault_end is not None:
        outcome.fault_window_s = [round(run.fault_start - started, 2), round(run.fault_end - started, 2)]
        after = [r.answered_at for r in requests if r.status == 200 and r.answered_at >= run.fault_end]
        outcome.first_ok_after_fault_s = round(min(after) - run.fault_end, 2) if after else None


def judge(outcome: Outcome, run: Run, scenario: Scenario, out: Path) -> None:
    item = run.item
    generation, state = probes.current_generation(item)
    run.generations.setdefault(generation, state)
    committed = int(probes.sql(f"SELECT COUNT(*) FROM orders.purchase_order WHERE item_code = '{item}' "
                        f"AND generation = {generation}")[0][0])
    fault_end = run.fault_end or time.monotonic()

    def applied_all() -> bool:
        level = probes.stock_item(item)
        return level.get("generation") == generation and level.get("eventsApplied", -1) >= committed

    try:
        caught_up = wait_until(applied_all, 180, "the stock database to catch up", interval_s=0.2)
        outcome.recovery_s = round(max(0.0, caught_up - fault_end), 2)
    except TimeoutError as e:
        outcome.notes += str(e) + "; "

    rec = subprocess.run([str(stack.RECONCILE), item, "--wait", "120", "--out", str(out)], capture_output=True, text=True)
    # the history is judged after the reconciliation's wait for the drain, and before any repair of Redis, so
    # that stranded units are the ones the run left
    orders = probes.committed_orders(item)
    verdict = history.check(history.History(
        requests=run.load.judged_requests(orders), orders=orders, applied=probes.applied_orders(item),
        generations=run.generations, current_generation=generation, redis_counter=probes.redis_counter(item),
        stock_level=probes.stock_level(item), token_held=token_held(out)))
    for name in ("oversold", "lost", "applied_twice", "limit_exceeded", "refused_committed", "stranded", "surplus",
                 "committed_unanswered"):
        setattr(outcome, name, getattr(verdict, name))
    outcome.findings = verdict.findings[:FINDINGS_IN_OUTCOME]
    (out / "findings.txt").write_text("".join(f + "\n" for f in verdict.findings) or "nothing found\n")
    outcome.stock = {g: run.generations[g].baseline for g in sorted(run.generations)}
    outcome.latency_ms = accepted_to_applied(item, run)
    outcome.dead_rows = probes.dead_rows(item)
    if outcome.dead_rows:
        outcome.notes += f"{outcome.dead_rows} outbox rows DEAD; "
    if scenario.gate in ("queue", "token") and run.label is None:
        # bots never order: every unit must have gone to a real user, none left unsold
        real = sum(o.units for o in orders.values() if o.generation == generation and not o.user_id.startswith("bot-"))
        outcome.unsold = run.generations[generation].baseline - real
        if outcome.unsold:
            outcome.notes += f"{outcome.unsold} units not sold to real users; "

    if rec.returncode != 0 and scenario.repair_redis:
        outcome.notes += "drift found by reconciliation: " + " ".join(
            line for line in rec.stderr.splitlines() if "FAILED" in line) + "; repaired with --repair-redis; "
        rec = subprocess.run([str(stack.RECONCILE), item, "--wait", "60", "--repair-redis", "--out", str(out)],
                             capture_output=True, text=True)
    outcome.reconciliation_exact = rec.returncode == 0
    if rec.returncode != 0:
        outcome.notes += "reconciliation: " + " ".join(l for l in rec.stderr.splitlines() if "FAILED" in l) + "; "
    if not verdict.passed:
        outcome.notes += "; ".join(verdict.findings[:3]) + "; "


def token_held(out: Path) -> int:
    """The units the item's unused purchase tokens hold, from the reconciliation report just written to out; they
    are not for sale until the tokens expire, and not stranded either."""
    try:
        report = json.loads((out / "reconciliation.json").read_text())
    except (OSError, ValueError):
        return 0
    return sum((item.get("unusedTokens") or {}).get("units", 0) for item in report.get("items", []))


def percentiles(values: list[float]) -> dict:
    if not values:
        return {}
    values = sorted(values)
    pick = lambda q: round(values[min(len(values) - 1, int(q * len(values)))], 1)  # noqa: E731
    return {"orders": len(values), "p50": pick(0.5), "p99": pick(0.99), "max": round(values[-1], 1)}


def accepted_to_applied(item: str, run: Run) -> dict:
    """Milliseconds from an order's commit (purchase_order.created_at) to its deduction's application in the stock
    database (processed_event.processed_at), by when it was committed: before, during and after the fault."""
    rows = probes.sql("SET time_zone = '+00:00'; SELECT UNIX_TIMESTAMP(o.created_at), "
               "TIMESTAMPDIFF(MICROSECOND, o.created_at, p.processed_at) / 1000 FROM orders.purchase_order o "
               f"JOIN stock.processed_event p ON p.event_id = o.event_id WHERE o.item_code = '{item}'")
    if run.fault_start is None or run.fault_end is None:
        return {"all": percentiles([float(ms) for _, ms in rows])}
    # the fault's window on the wall clock the database stamps with
    offset = time.time() - time.monotonic()
    start, end = run.fault_start + offset, run.fault_end + offset
    phases: dict[str, list[float]] = {"before": [], "during": [], "after": []}
    for committed, ms in rows:
        at_s = float(committed)
        phases["before" if at_s < start else "during" if at_s <= end else "after"].append(float(ms))
    return {phase: percentiles(values) for phase, values in phases.items() if values}
