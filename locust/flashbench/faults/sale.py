"""One scenario from set-up to verdict: its items (on the cluster topology, side items on the same Redis shard,
one per gate and one with a per-user limit), their loads, the fault, and each item judged as its own row."""
import sys
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

import gevent

from flashbench import admin, stack
from flashbench.polling import wait_until
from flashbench.faults import probes
from flashbench.faults.judge import Outcome, describe_answers, judge
from flashbench.faults.load import LOADS, default_stock, draw_orders, ideal_sell_out, user_pool
from flashbench.faults.run import Run
from flashbench.faults.scenarios import PER_USER_LIMIT, RESET_RETRY_S, SCENARIOS
from flashbench.faults.tables import write_answers


@dataclass(frozen=True)
class SideItem:
    """An item sold beside the scenario's own on the cluster topology, on the same Redis shard, so that one sale
    puts every gate and the per-user limit through each fault."""
    label: str
    gate: str
    per_user_limit: int | None
    rate_share: float  # of --rate (and of the stock)


SIDE_ITEMS = (SideItem("per-user limit", "redis", PER_USER_LIMIT, 0.2), SideItem("token gate", "token", None, 0.1),
              SideItem("waiting room", "queue", None, 0.05))


def item_name(name: str, near: str | None) -> str:
    """A fresh item code for the scenario; on the cluster topology one on the same shard as `near`, if given."""
    while True:
        item = f"fault-{name}-{uuid.uuid4().hex[:6]}"
        if near is None or stack.TOPOLOGY != "cluster" or same_shard(item, near):
            return item


def same_shard(item: str, other: str) -> bool:
    from flashbench.cluster.redis_nodes import item_slot, slot_owner
    return slot_owner(item_slot(item)) == slot_owner(item_slot(other))


def run_scenario(name: str, rate: float, duration_s: float, stock: int, out: Path) -> list[Outcome]:
    """Runs one scenario; its outcome, and on the cluster topology one per side item of the sale too."""
    scenario = SCENARIOS[name]
    duration_s *= scenario.duration_factor
    # the stock keeps its share of the units asked over a longer load, unless the scenario sets its own share
    stock = (default_stock(rate, duration_s, scenario.stock_share) if scenario.stock_share is not None
             else round(stock * scenario.duration_factor))
    plans = [SideItem("", scenario.gate, scenario.per_user_limit, scenario.rate_share)]
    if stack.TOPOLOGY == "cluster" and scenario.gate == "redis":
        plans += SIDE_ITEMS
    runs: list[Run] = []
    stocks: list[int] = []
    for plan in plans:
        item = item_name(name, runs[0].item if runs else None)
        item_rate, item_stock = rate * plan.rate_share, max(1, round(stock * plan.rate_share))
        limit = plan.per_user_limit
        draws = draw_orders(int(item_rate * duration_s), user_pool(item_stock, limit) if limit else None, seed=item)
        load = LOADS[plan.gate](item, item_rate, draws)
        runs.append(Run(name, item, load, stock_share=item_stock / sum(d.units for d in draws),
                        per_user_limit=limit, gate=plan.gate, label=plan.label or None))
        stocks.append(item_stock)
    run = runs[0]
    run.sides = runs[1:]
    outcomes = []
    try:
        if stack.TOPOLOGY == "cluster":
            from flashbench.cluster.whole import ensure_whole
            ensure_whole()
        if scenario.setup:
            scenario.setup()
        for r, item_stock in zip(runs, stocks):
            r.record_generation(admin.reset_stock(r.item, item_stock, r.per_user_limit, gate=r.gate,
                                                  retry_s=RESET_RETRY_S))
        for r in runs:
            baseline = r.generations[max(r.generations)].baseline
            # the stock database follows the reset through Kafka; wait for it so the run starts from a known state
            wait_until(lambda: probes.stock_item(r.item).get("baseline") == baseline, 30,
                       f"the reset of {r.item} to reach the stock database")
            sold_out_at = ideal_sell_out(r.load.draws, baseline, r.per_user_limit)
            r.load.sell_out_s = (sold_out_at if sold_out_at is not None else len(r.load.draws)) / r.load.rate
        if scenario.prepare:
            scenario.prepare(run)
        settled_before = probes.in_doubt_settled()
        for r in runs:
            print(f"[faults] {name}{' · ' + r.label if r.label else ''}: {r.load.rate:g}/s for {duration_s:g} s on "
                  f"{r.item} ({r.gate} gate), stock {r.generations[max(r.generations)].baseline} of "
                  f"{sum(d.units for d in r.load.draws)} units asked"
                  f"{f', limit {r.per_user_limit} per user' if r.per_user_limit else ''}; it would run out at "
                  f"{r.load.sell_out_s:.1f} s", file=sys.stderr, flush=True)
        runners = [r.load.run() for r in runs]
        gevent.sleep(0.1)
        try:
            scenario.inject(run)
        except BaseException:
            gevent.killall(runners)  # or their orders would go on into the next scenario
            raise
        gevent.joinall(runners)
        for r in runs:
            if r is not run:
                r.fault_start, r.fault_end, r.description = run.fault_start, run.fault_end, "the same faults"
            outcome = Outcome(name + (f" · {r.label}" if r.label else ""), r.description, per_user_limit=r.per_user_limit,
                              reloads=dict(r.reloads), redis_restored=r.redis_restored, figures=dict(r.figures))
            describe_answers(outcome, r)
            scenario_out = out / name / (r.label.replace(" ", "-") if r.label else "")
            scenario_out.mkdir(parents=True, exist_ok=True)
            write_answers(r.load, scenario_out / "answers.csv")
            judge(outcome, r, scenario, scenario_out)
            outcomes.append(outcome)
        outcomes[0].in_doubt = probes.settled_during(settled_before)
    finally:
        if scenario.teardown:
            scenario.teardown()
    for outcome in outcomes:
        print(f"[faults] {outcome.scenario}: {'PASS' if outcome.passed else 'FAIL'} {asdict(outcome)}",
              file=sys.stderr, flush=True)
    return outcomes
