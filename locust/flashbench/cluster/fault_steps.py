"""The steps the cluster's faults share, taken while the load goes on: a node killed from here and timed, a
cooperative wait on a blocking check, the sale's last answer awaited."""
import os
import signal
import time

from flashbench import stack
from flashbench.faults.probes import blocking
from flashbench.faults.run import Run, wait_cooperatively


def wait_for(predicate, timeout_s: float, what: str) -> float:
    """Polls a blocking predicate in the thread pool, cooperatively; when it held (monotonic)."""
    if not wait_cooperatively(lambda: blocking(predicate), timeout_s, interval_s=0.1):
        raise RuntimeError(f"timed out after {timeout_s:.0f} s waiting for {what}")
    return time.monotonic()


def kill_now(component: str) -> float:
    """SIGKILL of a node of the stack, sent from here; when it was sent (monotonic). `scripts/stack kill` took 0.3 s
    to 2.2 s to deliver it on the loaded box, and a Redis primary went on selling meanwhile; it is called after the
    signal, to wait until the process is gone and forget its pid file."""
    pid = stack.stack_pids()[component]
    sent = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    blocking(stack.control, "kill", component)
    return sent


def sale_answered(run: Run) -> None:
    """Waits (cooperatively) until every order of the sale was sent and answered, for figures on the orders sent
    after a fault; at most two minutes past the load's end."""
    load = run.load
    wait_cooperatively(lambda: all(len(ld.requests) >= len(ld.draws) for ld in run.all_loads()),
                              max(0.0, load.started + load.duration_s - time.monotonic()) + 120)
