import subprocess

from flashbench import cluster, faults, history
from flashbench.faults import Outcome


def test_an_items_slot_is_redis_clusters_for_its_hash_tag():
    # CLUSTER KEYSLOT answers for keys tagged {foo}, {123456789} and {fault-x-879ccc}
    assert cluster.item_slot("foo") == 12182
    assert cluster.item_slot("123456789") == 12739
    assert cluster.item_slot("fault-x-879ccc") == 12039


NODES = """\
a1 127.0.0.1:7200@17200 master,fail - 0 0 1 disconnected 0-5460
b2 127.0.0.1:7201@17201 myself,master - 0 0 2 connected 5461-10922 [7000->-c3]
c3 127.0.0.1:7202@17202 master - 0 0 3 connected 10923-16383
d4 127.0.0.1:7203@17203 slave a1 0 0 1 connected
"""


def test_the_owner_of_a_slot_is_the_live_primary_serving_it(monkeypatch):
    monkeypatch.setattr(faults, "REDIS_NODE_PORTS", ["7200", "7201"])
    monkeypatch.setattr(faults, "redis_cli", lambda *args: subprocess.CompletedProcess(args, 0, NODES, ""))
    assert [n.component for n in cluster.nodes()] == ["redis-1", "redis-2", "redis-3", "redis-4"]
    assert cluster.slot_owner(7000).component == "redis-2"  # being migrated: still its owner's
    assert cluster.slot_owner(16383).component == "redis-3"
    assert cluster.slot_owner(100) is None  # its primary failed and no replica was promoted yet


def test_partition_leaders_are_read_from_the_stacks_line(monkeypatch):
    line = "p0 leader 1 isr 1,2,3, p1 leader 2 isr 2,3,1, p2 leader none isr 3\n"
    monkeypatch.setattr(cluster.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, line, ""))
    assert cluster.partition_leaders() == {0: 1, 1: 2}


def request(sent, answered, status=200):
    return history.Request(sent, answered, status, None if status == 200 else "STOCK_RELOADING")


def test_the_selling_gap_runs_from_the_last_200_before_the_kill_to_the_first_200_of_an_order_sent_after_it():
    main, side = faults.Load("a", 10, []), faults.Load("b", 10, [])
    main.requests = [request(9.0, 9.5), request(9.9, 10.4), request(10.5, 12.0, 503), request(14.0, 17.5)]
    # answered after the kill but sent before it: its unit was taken before the kill
    side.requests = [request(9.8, 11.0), request(15.0, 16.0)]
    run = faults.Run("redis-primary-kill", "a", main, 0.4, None, sides=[faults.Run("x", "b", side, 0.4, None)])
    assert cluster.selling_gap(run, kill_at=10.0) == {"last_200_before_kill_s": -0.5, "first_200_after_kill_s": 6.0,
                                                      "selling_gap_s": 6.5}


def test_the_cluster_notes_name_the_gap_against_its_target_and_the_latency_by_phase():
    killed = Outcome("redis-primary-kill", "kill", figures={"promoted_after_s": 4.1, "selling_gap_s": 12.0},
                     latency_ms={"before": {"orders": 10, "p50": 40.0, "p99": 90.0, "max": 95.0}})
    notes = faults.cluster_notes([killed, Outcome("relay-kill", "kill")])
    assert "- redis-primary-kill: promoted after s 4.1, selling gap s 12.0 (target ≤ 10 s: MISSED)" in notes
    assert "| redis-primary-kill | 40 / 90 / 95 (10) | — | — |" in notes


def test_an_outbox_row_given_up_fails_the_scenario():
    assert Outcome("brokers-down", "down", reconciliation_exact=True, dead_rows=0).passed
    assert not Outcome("brokers-down", "down", reconciliation_exact=True, dead_rows=2).passed


def test_the_promotion_is_timed_by_the_new_primarys_log(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "STATE", tmp_path)
    monkeypatch.setattr(faults, "REDIS_NODE_PORTS", ["7200"])
    log = tmp_path / "redis-cluster" / "6" / "redis.log"
    log.parent.mkdir(parents=True)
    log.write_text("4753:S 26 Nov 2026 10:00:00.000 # Failover election won: I'm the new master.\n"
                   "4753:S 26 Nov 2026 11:22:40.000 * Connection with primary lost.\n"
                   "4753:S 26 Nov 2026 11:22:43.814 # Failover election won: I'm the new master.\n")
    node = cluster.Node("f6", 7205, True, False, ())
    killed = cluster.dt.datetime(2026, 11, 26, 11, 22, 38).timestamp()
    assert round(cluster.election_won(node, killed) - killed, 3) == 5.814
    assert cluster.election_won(node, killed + 60) is None
