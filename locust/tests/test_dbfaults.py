"""The database fault runner's own parts that need no stack: the selling gap and the command's share of it."""
import csv

from flashbench import dbfaults
from flashbench.faults.judge import Outcome
from flashbench.faults.tables import ANSWER_COLUMNS


def write_answers(path, rows):
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(ANSWER_COLUMNS)
        for started, answered, status in rows:
            w.writerow([started, answered, status, "", "", "", 1, "u", ""])


def test_the_gap_runs_from_the_kill_to_the_first_200_of_an_order_sent_after_it(tmp_path):
    answers = tmp_path / "answers.csv"
    write_answers(answers, [
        (9.9, 12.5, 200),  # sent before the kill, answered late: not the sale resuming
        (10.1, 10.2, 503),
        (11.0, 13.4, 200),
        (12.0, 13.2, 200),
    ])
    assert dbfaults.selling_gap(answers, [10.0, 11.2]) == 3.2
    assert dbfaults.selling_gap(answers, None) is None
    assert dbfaults.selling_gap(answers, [20.0, 21.0]) is None


def test_the_commands_share_is_of_the_gap_and_only_for_a_failover(tmp_path):
    answers = tmp_path / "answers.csv"
    write_answers(answers, [(10.5, 14.0, 200)])
    failover = Outcome("db-primary-kill (run 1)", "kill", fault_window_s=[10.0, 11.5],
                              figures={"db_failover_s": 1.0, "reload_after_failover": "200"})
    assert dbfaults.gap_row(failover, answers) == {
        "scenario": "db-primary-kill (run 1)", "selling_gap_s": 4.0, "command_s": 1.0, "command_share_pct": 25,
        "reload_after_failover": "200"}
    paused = Outcome("db-replica-paused (run 1)", "pause", fault_window_s=[10.0, 25.0])
    assert dbfaults.gap_row(paused, answers)["command_s"] == 15.0
    assert dbfaults.gap_row(paused, answers)["command_share_pct"] is None
    broken = Outcome("db-kill-behind (run 1)", "not completed")
    assert dbfaults.gap_row(broken, tmp_path / "none.csv")["selling_gap_s"] is None
    table = dbfaults.gap_table([dbfaults.gap_row(failover, answers), dbfaults.gap_row(broken, tmp_path / "x")])
    assert "| db-primary-kill (run 1) | 4.0 | 1.0 | 25 % | 200 |" in table
    assert "| db-kill-behind (run 1) | — | — | — | — |" in table


def test_a_process_is_gone_once_it_exited_even_before_it_is_reaped():
    import subprocess
    child = subprocess.Popen(["sleep", "30"])
    assert not dbfaults.gone(child.pid)
    child.kill()
    dbfaults.wait_until(lambda: dbfaults.gone(child.pid), 5, "the child to exit", 0.01)  # a zombie until waited
    child.wait()
    assert dbfaults.gone(child.pid)


def test_the_gtid_gap_counts_domain_zero_and_never_goes_below_zero():
    assert dbfaults.gtid_gap("0-1-250", "0-1-211") == 39
    assert dbfaults.gtid_gap("0-2-560", "0-1-249") == 311  # across a failover: the sequence goes on
    assert dbfaults.gtid_gap("0-1-248", "0-1-250") == 0  # read apart, the replica may look ahead
    assert dbfaults.gtid_gap("1-1-9,0-1-5", "") == 5
