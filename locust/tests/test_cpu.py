import os

from flashbench import cpu


def test_reads_this_process_cpu_time():
    assert cpu.cpu_seconds(os.getpid()) >= 0
    assert cpu.cpu_seconds(2 ** 22 + 1) is None


def test_answers_are_interpolated_between_history_rows():
    history = [(100.0, 0), (101.0, 1000), (102.0, 2000)]
    assert cpu.answered_at(history, 99.0) == 0
    assert cpu.answered_at(history, 100.5) == 500
    assert cpu.answered_at(history, 103.0) == 2000


def test_cost_per_order_over_the_steady_part_leaves_out_the_start_and_the_end():
    history = [(float(t), 1000 * t) for t in range(11)]  # 1,000 answers a second for 10 s
    # order-api burns 2 s of CPU a second in the first 2 s (the cold phase), then 0.5 s a second
    samples, spent = [], 0.0
    for t in range(11):
        samples.append(cpu.Sample(float(t), {"order-api": spent, "locust": t * 0.45}))
        spent += 2.0 if t < 2 else 0.5
    first, last, orders = cpu.steady_window(samples, history, total=10_000)

    steady = cpu.per_order_us(first, last, orders)
    whole = cpu.per_order_us(samples[0], samples[-1], 10_000)

    assert first.at == 3.0 and last.at == 9.0 and orders == 6000
    assert round(steady["order-api"]) == 500
    assert round(whole["order-api"]) == 800
    assert round(steady["locust"]) == 450


def test_a_process_that_ended_counts_until_its_last_sample():
    samples = [cpu.Sample(0.0, {"locust": None}), cpu.Sample(1.0, {"locust": 0.0}),
               cpu.Sample(2.0, {"locust": 0.9}), cpu.Sample(3.0, {"locust": None})]
    assert cpu.last_known(samples).cpu_s == {"locust": 0.9}
    assert cpu.first_known(samples).cpu_s == {"locust": 0.0}


def test_the_engine_total_leaves_the_client_out():
    figures = {name: 100.0 for name in cpu.ENGINE} | {"locust": 450.0}
    text = cpu.table(figures, figures, "locust")
    assert "| **engine (all but locust)** | **600** | **600** |" in text
    assert "| locust | 450 | 450 |" in text


def test_the_cluster_topologys_processes_are_summed_by_role():
    figures = {"redis-1": 10.0, "redis-2": 5.0, "order-api": 100.0, "order-api-2": 90.0, "kafka-3": 7.0,
               "locust": 50.0}
    assert cpu.by_role(figures) == {"redis": 15.0, "order-api": 190.0, "kafka": 7.0, "locust": 50.0}
    assert cpu.processes_by_role(figures) == {"redis": 2, "order-api": 2, "kafka": 1, "locust": 1}


def test_a_role_with_a_process_not_measured_has_no_figure():
    assert cpu.by_role({"redis-1": 10.0, "redis-2": None})["redis"] is None
    assert cpu.by_role({"redis-1": None, "redis-2": 3.0})["redis"] is None


def test_the_costs_of_a_run_are_per_order_over_its_steady_part_and_over_all_of_it():
    history = [(float(t), 1000 * t) for t in range(11)]
    samples = [cpu.Sample(float(t), {"redis": 0.3 * t + (1.0 if t > 9 else 0.0)}) for t in range(11)]
    costs = cpu.costs(samples, history, 10_000)
    assert round(costs["steady"]["redis"]) == 300  # 3 s to 9 s: 1.8 s for 6,000 orders
    assert round(costs["whole"]["redis"]) == 400  # 4 s for 10,000 orders, the last second's burst included
    assert cpu.costs(samples[:2], history, 10_000)["steady"] is None  # too short to have a steady part


def test_the_samples_are_written_with_the_answers_counted_by_then(tmp_path):
    sampler = cpu.CpuSampler({"redis": 1, "locust": 2})
    sampler.samples = [cpu.Sample(100.0, {"redis": 1.0, "locust": None}), cpu.Sample(101.5, {"redis": 1.25, "locust": 0.5})]
    cpu.write_samples(tmp_path / "cpu.csv", sampler, [(100.0, 0), (102.0, 2000)])
    assert (tmp_path / "cpu.csv").read_text() == ("epoch_s,answered,redis_cpu_s,locust_cpu_s\n"
                                                  "100.000,0,1.00,\n"
                                                  "101.500,1500,1.25,0.50\n")
