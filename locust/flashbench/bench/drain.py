"""The drain: how long the pipeline took, after the last answer, to apply every accepted order in the stock
database."""
import datetime as dt

from flashbench.console import log
from flashbench.polling import wait_until
from flashbench.stockdb import stock_item


def drain_seconds(last_answer_at: float, last_applied_at: str) -> float:
    """Last answer (epoch seconds, from the locustfile) → the stock database's lastAppliedAt (ISO-8601, UTC):
    both off this machine's clock. Zero when the last order was applied before the last answer arrived."""
    applied = dt.datetime.fromisoformat(last_applied_at.replace("Z", "+00:00")).timestamp()
    return max(0.0, applied - last_answer_at)


def measure_drain(item: str, accepted: int, last_answer_at: float, timeout_s: float) -> float | None:
    """Waits until the stock database applied the `accepted` orders of the item; the drain (s), or None when it
    did not within the timeout."""
    try:
        wait_until(lambda: stock_item(item).get("eventsApplied", -1) >= accepted,
                   timeout_s, "the stock database to apply every accepted order",
                   progress=lambda: f"draining: the stock database applied "
                                    f"{stock_item(item).get('eventsApplied', 0):,} of {accepted:,} orders")
    except TimeoutError as e:
        log(str(e))
        return None
    return drain_seconds(last_answer_at, stock_item(item)["lastAppliedAt"])
