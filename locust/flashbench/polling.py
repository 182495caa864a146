"""Waiting on a condition with a deadline, from a plain (not gevent) caller: the bench, the fault suite's checks."""
import time

from flashbench.console import log

PROGRESS_EVERY_S = 5.0


def wait_until(predicate, timeout_s: float, what: str, interval_s: float = 0.05, progress=None) -> float:
    """Polls until predicate() holds; returns when it did (monotonic), or raises after the deadline. `progress`,
    when given, is logged every PROGRESS_EVERY_S while it waits."""
    started = time.monotonic()
    deadline, next_progress = started + timeout_s, started + PROGRESS_EVERY_S
    while True:
        if predicate():
            return time.monotonic()
        now = time.monotonic()
        if now >= deadline:
            raise TimeoutError(f"timed out after {timeout_s:.0f} s waiting for {what}")
        if progress is not None and now >= next_progress:
            log(f"{progress()}, {now - started:.0f} s of at most {timeout_s:.0f}")
            next_progress = now + PROGRESS_EVERY_S
        time.sleep(interval_s)
