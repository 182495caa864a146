import os
import signal
import subprocess
import time

import pytest

from flashbench import history, stack
from flashbench.cluster import (brokers, fault_steps, kafka_faults, redis_faults, redis_nodes, sale_figures, scenarios,
                                whole)
from flashbench.faults import probes
from flashbench.faults.judge import Outcome
from flashbench.faults.load import Load, default_stock, draw_orders, ideal_sell_out
from flashbench.faults.run import Run
from flashbench.faults.tables import cluster_notes


def test_an_items_slot_is_redis_clusters_for_its_hash_tag():
    # CLUSTER KEYSLOT answers for keys tagged {foo}, {123456789} and {fault-x-879ccc}
    assert redis_nodes.item_slot("foo") == 12182
    assert redis_nodes.item_slot("123456789") == 12739
    assert redis_nodes.item_slot("fault-x-879ccc") == 12039


NODES = """\
a1 127.0.0.1:7200@17200 master,fail - 0 0 1 disconnected 0-5460
b2 127.0.0.1:7201@17201 myself,master - 0 0 2 connected 5461-10922 [7000->-c3]
c3 127.0.0.1:7202@17202 master - 0 0 3 connected 10923-16383
d4 127.0.0.1:7203@17203 slave a1 0 0 1 connected
"""


def test_the_owner_of_a_slot_is_the_live_primary_serving_it(monkeypatch):
    monkeypatch.setattr(stack, "REDIS_NODE_PORTS", ["7200", "7201"])
    monkeypatch.setattr(probes, "redis_cli", lambda *args: subprocess.CompletedProcess(args, 0, NODES, ""))
    assert [n.component for n in redis_nodes.nodes()] == ["redis-1", "redis-2", "redis-3", "redis-4"]
    assert redis_nodes.slot_owner(7000).component == "redis-2"  # being migrated: still its owner's
    assert redis_nodes.slot_owner(16383).component == "redis-3"
    assert redis_nodes.slot_owner(100) is None  # its primary failed and no replica was promoted yet


def test_partition_leaders_are_read_from_the_stacks_line(monkeypatch):
    line = "p0 leader 1 isr 1,2,3, p1 leader 2 isr 2,3,1, p2 leader none isr 3\n"
    monkeypatch.setattr(brokers.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, line, ""))
    assert brokers.partition_leaders() == {0: 1, 1: 2}


def request(sent, answered, status=200):
    return history.Request(sent, answered, status, None if status == 200 else "STOCK_RELOADING")


def test_the_selling_gap_runs_from_the_last_200_before_the_kill_to_the_first_200_of_an_order_sent_after_it():
    main, side = Load("a", 10, []), Load("b", 10, [])
    main.requests = [request(9.0, 9.5), request(9.9, 10.4), request(10.5, 12.0, 503), request(14.0, 17.5)]
    # answered after the kill but sent before it: its unit was taken before the kill
    side.requests = [request(9.8, 11.0), request(15.0, 16.0)]
    run = Run("redis-primary-kill", "a", main, 0.4, None, sides=[Run("x", "b", side, 0.4, None)])
    assert sale_figures.selling_gap(run, kill_at=10.0) == {"last_200_before_kill_s": -0.5, "first_200_after_kill_s": 6.0,
                                                      "selling_gap_s": 6.5}


def test_the_cluster_notes_name_the_gap_against_its_target_and_the_latency_by_phase():
    killed = Outcome("redis-primary-kill", "kill", figures={"promoted_after_s": 4.1, "selling_gap_s": 12.0},
                     latency_ms={"before": {"orders": 10, "p50": 40.0, "p99": 90.0, "max": 95.0}})
    notes = cluster_notes([killed, Outcome("relay-kill", "kill")])
    assert "- redis-primary-kill: promoted after s 4.1, selling gap s 12.0 (target ≤ 10 s: MISSED)" in notes
    assert "| redis-primary-kill | 40 / 90 / 95 (10) | — | — |" in notes


def test_an_outbox_row_given_up_fails_the_scenario():
    assert Outcome("brokers-down", "down", reconciliation_exact=True, dead_rows=0).passed
    assert not Outcome("brokers-down", "down", reconciliation_exact=True, dead_rows=2).passed


def test_the_promotion_is_timed_by_the_new_primarys_log(tmp_path, monkeypatch):
    monkeypatch.setattr(stack, "STATE", tmp_path)
    monkeypatch.setattr(stack, "REDIS_NODE_PORTS", ["7200"])
    log = tmp_path / "redis-cluster" / "6" / "redis.log"
    log.parent.mkdir(parents=True)
    log.write_text("4753:S 26 Nov 2026 10:00:00.000 # Failover election won: I'm the new master.\n"
                   "4753:S 26 Nov 2026 11:22:40.000 * Connection with primary lost.\n"
                   "4753:S 26 Nov 2026 11:22:43.814 # Failover election won: I'm the new master.\n")
    node = redis_nodes.Node("f6", 7205, True, False, ())
    killed = redis_faults.dt.datetime(2026, 11, 26, 11, 22, 38).timestamp()
    assert round(redis_faults.election_won(node, killed) - killed, 3) == 5.814
    assert redis_faults.election_won(node, killed + 60) is None


def test_a_slot_is_migrated_in_batches_of_keys_as_redis_cli_reshard_does(monkeypatch):
    keys = [f"stock:{{a}}:idem:{i}" for i in range(250)]
    calls = []

    def cli(port, *args):
        calls.append((port, *args))
        if args[:2] == ("CLUSTER", "GETKEYSINSLOT"):
            batch = keys[:int(args[3])]
            return "".join(k + "\n" for k in batch)
        if args[0] == "MIGRATE":
            del keys[:len(args) - args.index("KEYS") - 1]
        return "OK\n"

    monkeypatch.setattr(redis_nodes, "cli", cli)
    source, target, other = (redis_nodes.Node(i, p, True, False, ()) for i, p in (("s", 7201), ("t", 7200), ("o", 7202)))
    assert redis_nodes.migrate_slot(42, source, target, [target, source, other]) == (250, 3)
    assert calls[:2] == [(7200, "CLUSTER", "SETSLOT", "42", "IMPORTING", "s"),
                         (7201, "CLUSTER", "SETSLOT", "42", "MIGRATING", "t")]
    migrates = [c for c in calls if c[1] == "MIGRATE"]
    assert [len(c) - c.index("KEYS") - 1 for c in migrates] == [100, 100, 50]
    assert migrates[0][:7] == (7201, "MIGRATE", "127.0.0.1", "7200", "", "0", "5000")
    assert calls[-3:] == [(p, "CLUSTER", "SETSLOT", "42", "NODE", "t") for p in (7200, 7201, 7202)]


def test_answers_are_counted_by_when_their_order_was_sent_over_every_item_of_the_sale():
    main, side = Load("a", 10, []), Load("b", 10, [])
    main.requests = [request(1.0, 1.1), request(2.0, 6.0, 503), request(3.0, 3.1), request(5.0, 5.1)]
    side.requests = [request(2.5, 2.6, 503), request(9.0, 9.1)]
    run = Run("slot-migration", "a", main, 0.4, None, sides=[Run("x", "b", side, 0.4, None)])
    assert sale_figures.answers_sent(run, 2.0, 4.0) == {"503 STOCK_RELOADING": 2, "200": 1}
    assert sale_figures.answers_sent(run, 4.0) == {"200": 2}


def kafka_run(monkeypatch, leaders, duration_s=0.0):
    """A run of a Kafka fault with no orders, its stack calls recorded; `leaders` answers the lookups in turn. Its
    faults come at once (`at` does not wait) and a brokers-down lasts 0.4 of duration_s."""
    calls = []
    monkeypatch.setattr(stack, "control", lambda *args: calls.append(" ".join(args)))
    monkeypatch.setattr(stack, "stack_pids", lambda: {f"kafka-{n}": 4240 + n for n in (1, 2, 3)})
    monkeypatch.setattr(os, "kill", lambda pid, sig: calls.append(f"SIGKILL {pid}"))

    def partition_leaders():
        calls.append("lookup")
        return {2: leaders.pop(0)}

    monkeypatch.setattr(brokers, "partition_leaders", partition_leaders)
    monkeypatch.setattr(brokers, "item_partition", lambda item: 2)
    monkeypatch.setattr(probes, "sql", lambda query: [["12", "7", "0"]])
    monkeypatch.setattr(kafka_faults, "at", lambda load, offset_s: None)
    load = Load("a", 10, [])
    load.started, load.duration_s = time.monotonic(), duration_s
    return Run("brokers-down", "a", load, 0.9, None), calls


def test_brokers_down_kills_the_leader_looked_up_before_the_load_and_restarts_both(monkeypatch):
    run, calls = kafka_run(monkeypatch, [3])
    kafka_faults.look_up_leader(run)
    assert calls == ["lookup"]
    kafka_faults.brokers_down(run)
    assert calls[1:5] == ["SIGKILL 4243", "kill kafka-3", "SIGKILL 4241", "kill kafka-1"]
    assert sorted(calls[5:]) == ["start kafka-1", "start kafka-3"]  # at once, no lookup during the fault
    assert run.figures["outbox_unsent_at_restart"] == 12 and run.figures["outbox_dead_at_restart"] == 0


def test_the_leader_killed_next_is_looked_up_as_soon_as_the_previous_one_is_back(monkeypatch):
    run, calls = kafka_run(monkeypatch, [2, 3, 1], duration_s=200.0)
    kafka_faults.look_up_leader(run)
    kafka_faults.broker_leader_kill(3)(run)
    assert calls == ["lookup", "SIGKILL 4242", "kill kafka-2", "start kafka-2", "lookup", "SIGKILL 4243", "kill kafka-3",
                     "start kafka-3", "lookup", "SIGKILL 4241", "kill kafka-1", "start kafka-1"]


def test_the_kafka_faults_end_well_before_their_stock_runs_out():
    rate, duration_s = 200.0, 30.0 * scenarios.SCENARIOS["brokers-down"].duration_factor
    draws = draw_orders(int(rate * duration_s), None, seed="kafka")
    stock = default_stock(rate, duration_s, scenarios.SCENARIOS["brokers-down"].stock_share)
    sell_out_s = ideal_sell_out(draws, stock, None) / rate
    brokers_back = (0.1 + kafka_faults.BROKERS_DOWN_SHARE) * duration_s + kafka_faults.KAFKA_RESTART_S
    # the restart of a broker took up to 49 s on the loaded box; the sale must go on after it
    assert sell_out_s - brokers_back >= 5
    assert 0.1 * duration_s + kafka_faults.KAFKA_RESTART_S + kafka_faults.SELLING_AFTER_S <= duration_s  # the first leader kill


def test_a_leader_kill_that_would_come_too_late_for_the_sale_is_left_out(monkeypatch):
    run, calls = kafka_run(monkeypatch, [2, 3], duration_s=90.0)
    kafka_faults.look_up_leader(run)
    run.load.started -= 31.0  # the first kill's restart and the lookup took until 31 s of a 90 s load
    kafka_faults.broker_leader_kill(3)(run)
    assert calls == ["lookup", "SIGKILL 4242", "kill kafka-2", "start kafka-2", "lookup"]
    assert "1× of 3" in run.description


def test_a_primary_is_killed_from_the_harness_and_timed_right_before_the_signal(monkeypatch):
    victim, promoted = (redis_nodes.Node(i, p, True, False, ((0, 16383),)) for i, p in (("v", 7201), ("n", 7205)))
    run = Run("redis-primary-kill", "a", Load("a", 10, []), 0.4, None, prepared={"owner": victim})
    signals, owners = [], [None, promoted, promoted]
    monkeypatch.setattr(stack, "REDIS_NODE_PORTS", ["7200"])
    monkeypatch.setattr(stack, "stack_pids", lambda: {"redis-2": 4242})
    monkeypatch.setattr(os, "kill", lambda pid, sig: signals.append((pid, sig, time.monotonic())))
    # scripts/stack kill is slow to start on a loaded box; by then the harness's signal has been sent
    monkeypatch.setattr(stack, "control", lambda *args: time.sleep(0.3))
    monkeypatch.setattr(redis_nodes, "slot_owner", lambda slot: owners.pop(0))
    monkeypatch.setattr(redis_faults, "election_won", lambda node, since: None)
    got_victim, owner, killed_at, _ = redis_faults.kill_primary(run)
    (pid, sig, signalled_at), = signals
    assert (got_victim, owner, pid, sig) == (victim, promoted, 4242, signal.SIGKILL)
    assert 0 <= signalled_at - killed_at < 0.05


def test_a_node_is_a_synced_replica_only_with_its_link_up_and_no_full_sync_under_way(monkeypatch):
    infos = {7201: "role:slave\r\nmaster_link_status:up\r\nmaster_sync_in_progress:0\r\n",
             7202: "role:slave\r\nmaster_link_status:up\r\nmaster_sync_in_progress:1\r\n",
             7203: "role:slave\r\nmaster_link_status:down\r\nmaster_sync_in_progress:0\r\n",
             7204: "role:master\r\nconnected_slaves:1\r\n"}

    def cli(port, *args):
        if port not in infos:
            raise RuntimeError("Could not connect")
        return infos[port]

    monkeypatch.setattr(redis_nodes, "cli", cli)
    assert [redis_nodes.replica_synced(p) for p in (7201, 7202, 7203, 7204, 7205)] == [True, False, False, False,
                                                                                        False]


def test_only_the_nodes_an_earlier_scenario_left_down_are_started_again(tmp_path, monkeypatch):
    for kind, file, alive in (("redis", "redis.pid", {1, 3, 4, 5, 6}), ("kafka", "kafka.pid", {1, 2})):
        for n in range(1, (6 if kind == "redis" else 3) + 1):
            pid_file = tmp_path / f"{kind}-cluster" / str(n) / file
            pid_file.parent.mkdir(parents=True)
            pid_file.write_text(str(os.getpid() if n in alive else 2 ** 22 + 1))
    started = []
    monkeypatch.setattr(stack, "STATE", tmp_path)
    monkeypatch.setattr(stack, "control", lambda *args: started.append(" ".join(args)))
    monkeypatch.setattr(whole, "cluster_ok", lambda: True)
    whole.ensure_whole()
    assert started == ["start redis", "start kafka-3"]


def test_a_whole_cluster_is_left_as_it_is(tmp_path, monkeypatch):
    for kind, file, count in (("redis", "redis.pid", 6), ("kafka", "kafka.pid", 3)):
        for n in range(1, count + 1):
            pid_file = tmp_path / f"{kind}-cluster" / str(n) / file
            pid_file.parent.mkdir(parents=True)
            pid_file.write_text(str(os.getpid()))
    started = []
    monkeypatch.setattr(stack, "STATE", tmp_path)
    monkeypatch.setattr(stack, "control", lambda *args: started.append(" ".join(args)))
    monkeypatch.setattr(whole, "cluster_ok", lambda: True)
    whole.ensure_whole()
    assert started == []


def test_a_cooperative_wait_says_when_its_check_held_and_gives_up_at_its_deadline():
    checks = iter([False, False, True])
    before = time.monotonic()
    assert before <= fault_steps.wait_for(lambda: next(checks), 5.0, "the third check") <= time.monotonic()
    with pytest.raises(RuntimeError, match="timed out after 0 s waiting for a check that never holds"):
        fault_steps.wait_for(lambda: False, 0.3, "a check that never holds")
