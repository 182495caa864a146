"""What the suite writes: every request of a run (answers.csv), and the table of faults.md with its notes on the
Redis restarts and on what the cluster faults measured."""
import csv
from pathlib import Path

from flashbench.faults.judge import Outcome
from flashbench.faults.load import Load

SELLING_GAP_TARGET_S = 10.0  # the cluster topology's Redis failover: last 200 before the kill → first 200 after

ANSWER_COLUMNS = ["started_s", "answered_s", "status", "code", "latency_ms", "order_code", "units", "user_id",
                  "idempotency_key"]


def write_answers(load: Load, path: Path) -> None:
    """Every request; times in seconds after the load started, as the suite's other figures."""
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ANSWER_COLUMNS)
        for r in sorted(load.requests, key=lambda r: r.sent_at):
            w.writerow([f"{r.sent_at - load.started:.3f}", f"{r.answered_at - load.started:.3f}", r.status,
                        r.code or "", f"{(r.answered_at - r.sent_at) * 1000:.1f}", r.order_code or "", r.units,
                        r.user_id, r.idempotency_key or ""])



def cell(value) -> str:
    return "—" if value is None else str(value)


def table(outcomes: list[Outcome]) -> str:
    lines = ["| scenario | faults injected | stock (per generation) | fault window (s) | first SOLD_OUT (s) | "
             "requests sent | 200s | oversold | lost | applied twice | limit exceeded | refused but committed | "
             "stranded units | reloads 200 / 503 | time to recover (s) | first 200 after fault (s) | "
             "slowest error answer (ms) | other answers | in doubt, then committed / given back | verdict |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|"]
    for o in outcomes:
        others = ", ".join(f"{k}: {v}" for k, v in sorted(o.statuses.items()) if k != "200") or "none"
        stock = ", ".join(f"{g}: {b}" for g, b in o.stock.items()) or "—"
        if o.per_user_limit:
            stock += f" (limit {o.per_user_limit} per user)"
        window = "–".join(f"{t:g}" for t in o.fault_window_s) if o.fault_window_s else "—"
        reloads = (f"{o.reloads.get('200', 0)} / {o.reloads.get('503 STOCK_RELOADING', 0)}"
                   + "".join(f", {k}: {v}" for k, v in sorted(o.reloads.items())
                             if k not in ("200", "503 STOCK_RELOADING"))) if o.reloads else "—"
        lines.append(
            f"| {o.scenario} | {o.faults} | {stock} | {window} | {cell(o.sold_out_at_s)} | {o.sent} | {o.ok} "
            f"| {o.oversold} | {o.lost} | {o.applied_twice} | {o.limit_exceeded} | {o.refused_committed} "
            f"| {cell(o.stranded)} | {reloads} | {cell(o.recovery_s)} | {cell(o.first_ok_after_fault_s)} "
            f"| {cell(o.slowest_error_ms)} | {others} "
            f"| {o.in_doubt.get('committed', 0)} / {o.in_doubt.get('given_back', 0)} "
            f"| {'PASS' if o.passed else 'FAIL: ' + o.notes} |")
    return "\n".join(lines)


def restored_notes(outcomes: list[Outcome]) -> str:
    """What the Redis restarts came back with: the counter as restored, against the truth at that moment."""
    lines = []
    for o in outcomes:
        r = o.redis_restored
        if "baseline_minus_committed" in r:
            stale = r["stale_by"]
            verdict = ("stale: higher than the truth" if stale and stale > 0 else "not higher than the truth")
            lines.append(f"- {o.scenario}: Redis came back with counter {cell(r['restored'])} (it held "
                         f"{cell(r['counter_before_kill'])} just before the kill); baseline − Σ committed was "
                         f"{r['baseline_minus_committed']} just after: {verdict}"
                         + (f" by {stale} units" if stale else ""))
        elif r:
            lines.append(f"- {o.scenario}: Redis came back with counter {cell(r.get('restored'))}; first 200 "
                         f"{cell(o.first_ok_after_fault_s)} s after it answered again")
    return "\n".join(lines)


def latency_cell(figures: dict) -> str:
    return f"{figures['p50']:g} / {figures['p99']:g} / {figures['max']:g} ({figures['orders']})" if figures else "—"


def cluster_notes(outcomes: list[Outcome]) -> str:
    """What the cluster faults measured (promotions, gaps in selling, leaders killed), and every item's time from
    commit to application in the stock database before, during and after its fault."""
    lines = []
    for o in outcomes:
        if o.figures:
            gap = o.figures.get("selling_gap_s")
            target = (f" (target ≤ {SELLING_GAP_TARGET_S:g} s: {'met' if gap <= SELLING_GAP_TARGET_S else 'MISSED'})"
                      if gap is not None else "")
            lines.append(f"- {o.scenario}: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in o.figures.items())
                         + target)
    rows = [f"| {o.scenario} | " + " | ".join(latency_cell(o.latency_ms.get(phase, {}))
                                               for phase in ("before", "during", "after")) + " |"
            for o in outcomes if o.latency_ms]
    if rows:
        lines += ["", "Accepted → applied (commit in the orders database → deduction applied in the stock database), "
                  "ms, p50 / p99 / max (orders), by when the order was committed:", "",
                  "| scenario · item | before the fault | during | after |", "|---|---|---|---|", *rows]
    return "\n".join(lines)
