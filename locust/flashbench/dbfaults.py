"""Faults of the replicated database (`scripts/stack up --db-replica`) under load and scarce stock, each run and
judged as the fault suite's (flashbench/faults: the same load, the same history checker, the same
reconciliation), on a stack whose services run on the failover URL of both database nodes.

    scripts/dbfaults [--scenarios db-primary-kill,db-kill-behind,db-replica-paused] [--runs 1] [--rate 300]
                     [--duration 60] [--stock N | --stock-share 0.4] [--out DIR]

db-primary-kill: SIGKILL of the database primary mid-sale (5 s before the stock would run out if every order were
    served), then `scripts/stack db-failover` at once (the operator's reaction is not in the figures, the command
    is), then a reload of the item's counter while orders flow, which must count the orders from the promoted node.
    The orders and the stock database live on that one server, so order-api, outbox-relay and stock-consumer all
    lose their primary and must reach the promoted one.
db-kill-behind: the same, with the replica's applier paused 5 s before the kill: it has received (and acknowledged)
    the last orders without applying them, and the failover must apply them before the promotion.
db-replica-paused: the replica's applier paused for 15 s around the sell-out while orders flow, then let go; no
    failover. Semi-sync waits for the replica's receipt, not its apply: the sale must not notice.

After a failover the services are restarted one by one (their URL then names the new primary first) and the fenced
node is rebuilt as the replica, so that the next run starts from a replicated database again. For each run the
selling gap is measured: from the kill to the first 200 of an order sent after it, and the command's share of it.
Writes dbfaults.md and dbfaults.json, and each run's scenario folders as scripts/faults does.
"""
import argparse
import csv
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import asdict
from pathlib import Path

import gevent

from flashbench import admin, stack
from flashbench.polling import wait_until
from flashbench.faults import probes
from flashbench.faults.judge import Outcome
from flashbench.faults.load import STOCK_SHARE, default_stock
from flashbench.faults.probes import blocking
from flashbench.faults.run import Run, Scenario, around_sell_out, at, wait_cooperatively
from flashbench.faults.sale import run_scenario
from flashbench.faults.scenarios import SCENARIOS
from flashbench.faults.tables import cell, table

STATE = stack.STATE
MYSQL_PORT = int(os.environ.get("MYSQL_PORT", "3306"))
MYSQL_REPLICA_PORT = int(os.environ.get("MYSQL_REPLICA_PORT", str(MYSQL_PORT + 1)))
PAUSE_BEFORE_KILL_S = 5.0
# the kill comes this long before the load would sell out if every order were served: units are left to sell from the
# promoted node, so that the first 200 after the kill exists and a rebuild of the counter counts from that node
KILL_LEAD_S = 5.0
RELOAD_WITHIN_S = 60.0  # the reload after the failover is retried while order-api answers 503 (its pool reconnecting)
REPLICA_PAUSE_S = 15.0
SERVICES = ("order-api", "outbox-relay", "stock-consumer")
# the services restarted after a failover compute their URL from the stack's state, not from this environment
URL_VARIABLES = ("ORDERS_DB_URL", "STOCK_DB_URL", "FLASHSTOCK_RECONCILIATION_REPLICA_URL")


def primary() -> str:
    recorded = STATE / "db-primary"
    return recorded.read_text().strip() if recorded.exists() else "mariadb"


def other(node: str) -> str:
    return "mariadb-2" if node == "mariadb" else "mariadb"


def port_of(node: str) -> int:
    return MYSQL_PORT if node == "mariadb" else MYSQL_REPLICA_PORT


def primary_sql(query: str) -> list[list[str]]:
    """probes.sql, on whichever node is the primary now: the checker reads the promoted one after a failover."""
    user, password = os.environ.get("DB_USER", "flashstock"), os.environ.get("DB_PASSWORD", "flashstock")
    r = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{port_of(primary())}", f"-u{user}",
                        f"-p{password}", "-N", "-B", "-e", query], check=True, capture_output=True, text=True)
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def root_sql(node: str, query: str) -> str:
    socket = STATE / node / "mysqld.sock"
    return subprocess.run(["mariadb", "--no-defaults", "-S", str(socket), "-uroot", "-N", "-B", "-e", query],
                          check=True, capture_output=True, text=True).stdout.strip()


def transactions_behind(replica: str) -> int:
    """The primary's binary log position less what the replica applied, in transactions (domain 0). The replica is
    read first: read second, it could have applied past the primary's position read before it (a negative count)."""
    applied = root_sql(replica, "SELECT @@gtid_slave_pos")
    return gtid_gap(root_sql(primary(), "SELECT @@gtid_binlog_pos"), applied)


def gtid_gap(primary_position: str, replica_position: str) -> int:
    """Transactions of domain 0 in the first GTID position and not in the second, never below 0."""
    def seq(position: str) -> int:
        return max((int(g.split("-")[2]) for g in position.split(",") if g.startswith("0-")), default=0)
    return max(0, seq(primary_position) - seq(replica_position))


def service_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in URL_VARIABLES}


def require_replicated() -> None:
    replica = other(primary())
    if (STATE / replica / "FENCED").exists():
        raise RuntimeError(f"{replica} is fenced: scripts/stack db-rebuild {replica} first")
    if root_sql(replica, "SHOW SLAVE STATUS") == "":
        raise RuntimeError(f"{replica} is not a replica: start the stack with scripts/stack up --db-replica")


def sigkill(node: str) -> float:
    """SIGKILL of the node's mariadbd from this greenlet, and when it was sent; returns once the process is gone.
    Not through gevent's thread pool: under load the pool is busy resolving the clients' new connections, and one
    run's kill waited 9.8 s in its queue while the primary went on selling. Not `scripts/stack kill` either: its own
    start-up (about a second on the shared box) would count in the selling gap as if MariaDB were still serving;
    db-failover finds the process gone and removes its pid file."""
    pid = int((STATE / node / "mariadb.pid").read_text().strip())
    sent = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    if not wait_cooperatively(lambda: gone(pid), 10):
        raise RuntimeError(f"{node} (pid {pid}) still there 10 s after SIGKILL")
    return sent


def gone(pid: int) -> bool:
    """Whether the process has exited (a zombie not yet reaped has exited too)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def kill_then_failover(pause_replica_first: bool):
    def inject(run: Run) -> None:
        load, old = run.load, primary()
        replica = other(old)
        kill_at = around_sell_out(load, KILL_LEAD_S)
        if pause_replica_first:
            at(load, max(0.0, kill_at - PAUSE_BEFORE_KILL_S))
            blocking(root_sql, replica, "STOP SLAVE SQL_THREAD")
        at(load, kill_at)
        behind = blocking(transactions_behind, replica)
        run.fault_start = sigkill(old)
        command_started, run.fault_end = timed_in_pool(stack.control, "db-failover")
        # the counter rebuilt while orders flow: it must count the orders from the promoted node, or it sells again
        # what was sold before the kill
        reload, reload_s = reload_after_failover(run)
        run.figures.update({"transactions_not_applied_at_kill": behind,
                            "kill_to_command_s": round(command_started - run.fault_start, 2),
                            "db_failover_s": round(run.fault_end - command_started, 2),
                            "reload_after_failover": reload, "reload_answered_after_s": reload_s})
        run.description = (f"kill -9 of the primary {old}"
                           + (f" (replica applier paused {PAUSE_BEFORE_KILL_S:g} s before)" if pause_replica_first
                              else "")
                           + f", {behind} transactions not yet applied by {replica}; db-failover took "
                           f"{(run.fault_end - command_started) * 1000:.0f} ms; then a reload of the counter: "
                           f"{reload} {reload_s} s after the failover")
    return inject


def timed_in_pool(fn, *args) -> tuple[float, float]:
    """`blocking(fn, *args)`, timed where it runs: when it started and ended, not counting its wait in the queue."""
    def timed():
        started = time.monotonic()
        fn(*args)
        return started, time.monotonic()
    return blocking(timed)


def reload_after_failover(run: Run) -> tuple[str, float]:
    """POST .../stock/reload until order-api does it (its pool may still be reaching the promoted node): the last
    answer, and when it came after the failover ended (s)."""
    deadline = time.monotonic() + RELOAD_WITHIN_S
    while True:
        status, payload = admin.call("POST", f"/admin/items/{run.item}/stock/reload")
        answer = admin.answer_key(status, payload)
        run.reloads[answer] += 1
        if status == 200 or time.monotonic() > deadline or status not in (503, -1):
            return answer, round(time.monotonic() - run.fault_end, 2)
        gevent.sleep(0.2)


def after_failover() -> None:
    """The services restarted one by one on the new primary's URL, then the fenced node rebuilt as the replica."""
    fenced = other(primary())
    for service in SERVICES:
        stack.control("restart", service, env=service_env())
    stack.control("db-rebuild", fenced, env=service_env())


def replica_paused(run: Run) -> None:
    load, replica = run.load, other(primary())
    at(load, around_sell_out(load, REPLICA_PAUSE_S / 2))
    run.fault_start = time.monotonic()
    blocking(root_sql, replica, "STOP SLAVE SQL_THREAD")
    gevent.sleep(REPLICA_PAUSE_S)
    behind = blocking(transactions_behind, replica)
    blocking(root_sql, replica, "START SLAVE SQL_THREAD")
    run.fault_end = time.monotonic()
    caught_up = blocking(wait_until, lambda: transactions_behind(replica) <= 0, 120, f"{replica} to catch up", 0.1)
    run.description = (f"the replica's applier paused {REPLICA_PAUSE_S:g} s: {behind} transactions behind, caught "
                       f"up {caught_up - run.fault_end:.1f} s after it was let go")


DB_SCENARIOS = {
    "db-primary-kill": Scenario(kill_then_failover(False), setup=require_replicated, teardown=after_failover),
    "db-kill-behind": Scenario(kill_then_failover(True), setup=require_replicated, teardown=after_failover),
    "db-replica-paused": Scenario(replica_paused, setup=require_replicated),
}


def selling_gap(answers: Path, window: list | None) -> float | None:
    """From the fault's start to the first 200 of an order sent after it (s)."""
    if not window:
        return None
    with answers.open() as f:
        after = [float(r["answered_s"]) for r in csv.DictReader(f)
                 if r["status"] == "200" and float(r["started_s"]) >= window[0]]
    return round(min(after) - window[0], 2) if after else None


def gap_row(outcome: Outcome, answers: Path) -> dict:
    """The selling gap of a run and the operator's command's share of it."""
    gap = selling_gap(answers, outcome.fault_window_s) if answers.exists() else None
    command = outcome.figures.get("db_failover_s")
    if command is None and outcome.fault_window_s:  # no failover: the fault's own window (the pause)
        command = round(outcome.fault_window_s[1] - outcome.fault_window_s[0], 2)
    share = round(100 * command / gap) if gap and command is not None and "db_failover_s" in outcome.figures else None
    return {"scenario": outcome.scenario, "selling_gap_s": gap, "command_s": command, "command_share_pct": share,
            "reload_after_failover": outcome.figures.get("reload_after_failover")}


def gap_table(gaps: list[dict]) -> str:
    lines = ["| run | kill (or pause) → first 200 of an order sent after it (s) | db-failover command (or the pause) "
             "(s) | command's share of the gap | reload after the failover |", "|---|---:|---:|---:|---|"]
    lines += [f"| {g['scenario']} | {cell(g['selling_gap_s'])} | {cell(g['command_s'])} | "
              + (f"{g['command_share_pct']} %" if g["command_share_pct"] is not None else "—")
              + f" | {cell(g['reload_after_failover'])} |" for g in gaps]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/dbfaults", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenarios", default=",".join(DB_SCENARIOS),
                   help="comma-separated, of: " + ", ".join(DB_SCENARIOS))
    p.add_argument("--runs", type=int, default=1, help="the scenarios, this many times in a row")
    p.add_argument("--rate", type=float, default=300.0, help="orders per second during each scenario")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of load per scenario")
    p.add_argument("--stock", type=int, help="the item's stock (default: --stock-share of the units asked)")
    p.add_argument("--stock-share", type=float, default=STOCK_SHARE)
    p.add_argument("--out", type=Path)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    names = a.scenarios.split(",")
    unknown = [n for n in names if n not in DB_SCENARIOS]
    if unknown:
        p.error(f"unknown scenarios {', '.join(unknown)}; known: {', '.join(DB_SCENARIOS)}")
    # the fault suite's runner and checker, on these scenarios, reading whichever node is the primary
    SCENARIOS.update(DB_SCENARIOS)
    probes.sql = primary_sql
    stock = a.stock or default_stock(a.rate, a.duration, a.stock_share)
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = a.out or stack.ROOT / "results" / f"{stamp}-dbfaults"
    outcomes, gaps = [], []
    for run in range(1, a.runs + 1):
        run_out = out / f"run-{run}"
        run_out.mkdir(parents=True, exist_ok=True)
        for name in names:
            try:
                # one outcome per item: the single topology sells one
                outcome = run_scenario(name, a.rate, a.duration, stock, run_out)[0]
            except Exception as e:  # one broken scenario must not cost the others' results
                print(f"[dbfaults] {name}: ERROR {e!r}", file=sys.stderr, flush=True)
                traceback.print_exc()
                outcome = Outcome(name, "not completed", notes=f"error: {e!r}")
            outcome.scenario = f"{name} (run {run})"
            outcomes.append(outcome)
            gaps.append(gap_row(outcome, run_out / name / "answers.csv"))
    md = table(outcomes)
    gap_md = gap_table(gaps)
    (out / "dbfaults.md").write_text(f"# Database faults under load, {stamp}\n\n`scripts/dbfaults "
                                     f"{' '.join(sys.argv[1:])}`\n\n{md}\n\n{gap_md}\n")
    (out / "dbfaults.json").write_text(json.dumps({"outcomes": [asdict(o) for o in outcomes], "gaps": gaps},
                                                  indent=2))
    print(md + "\n\n" + gap_md)
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
