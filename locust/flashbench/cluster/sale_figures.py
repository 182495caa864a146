"""What the orders of a sale on the cluster say of a fault: the gap in selling a kill made, the answers to the
orders sent while it lasted."""
from collections import Counter

from flashbench.faults.run import Run


def selling_gap(run: Run, kill_at: float) -> dict:
    """The gap in selling on the shard, over every item of the sale (they share it): from the last 200 answered
    before the kill to the first 200 answered to an order sent after it."""
    requests = [r for load in run.all_loads() for r in load.requests if r.status == 200]
    before = [r.answered_at for r in requests if r.answered_at <= kill_at]
    after = [r.answered_at for r in requests if r.sent_at >= kill_at]
    figures = {"last_200_before_kill_s": round(max(before) - kill_at, 2) if before else None,
               "first_200_after_kill_s": round(min(after) - kill_at, 2) if after else None}
    if before and after:
        figures["selling_gap_s"] = round(min(after) - max(before), 2)
    return figures


def answers_sent(run: Run, start: float, end: float = float("inf")) -> Counter:
    """The answers, over every item of the sale, to the orders sent from start to end (monotonic), by status and
    code."""
    return Counter(str(r.status) + (f" {r.code}" if r.status != 200 and r.code else "")
                   for load in run.all_loads() for r in load.requests if start <= r.sent_at <= end)
