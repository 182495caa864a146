"""The single topology's Redis faults and the Redis they need: a restart without persistence, and a SIGKILL of a
Redis with AOF everysec whose last second is cut off; its files where scripts/stack keeps them."""
import os
import shutil
import time
from pathlib import Path

import gevent

from flashbench import stack
from flashbench.faults.probes import RedisUnavailable, blocking, committed_units, current_generation, redis_counter
from flashbench.faults.run import Run, around_sell_out, at

# where scripts/stack keeps Redis's files; Redis 7 writes its AOF into appendonlydir (the stack keeps that name)
REDIS_DIR = stack.STATE / "redis"
AOF_DIR = REDIS_DIR / "appendonlydir"
LOST_TAIL_S = 1.0  # what appendfsync everysec may lose in a crash of the machine


def redis_env(appendonly: bool) -> dict:
    """The environment for `scripts/stack start redis`: AOF everysec, or the stack's normal Redis."""
    env = {k: v for k, v in os.environ.items() if k != "REDIS_APPENDONLY"}
    if appendonly:
        env["REDIS_APPENDONLY"] = "yes"
    return env



def first_counter_reading(item: str, timeout_s: float = 30) -> tuple[float, int | None]:
    """Polls Redis while it is being started, until it answers: when it did, and the item's counter as Redis
    restored it, before order-api (which reconnects with its own backoff) gets to rebuild it."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return time.monotonic(), redis_counter(item)
        except RedisUnavailable:
            if time.monotonic() > deadline:
                raise TimeoutError(f"Redis did not answer within {timeout_s:.0f} s") from None
            time.sleep(0.005)


def start_redis(item: str, appendonly: bool) -> tuple[float, int | None]:
    """`scripts/stack start redis`, with the item's counter caught as soon as Redis answers."""
    pool = gevent.get_hub().threadpool
    starting = pool.spawn(stack.control, "start", "redis", env=redis_env(appendonly))
    reading = pool.spawn(first_counter_reading, item)
    up_at, counter = reading.get()
    starting.get()  # raises if the start failed
    return up_at, counter


def forget_aof() -> None:
    """Removes Redis's AOF files (Redis must be stopped), so that the next start with AOF begins empty rather
    than from what an earlier run left."""
    shutil.rmtree(AOF_DIR, ignore_errors=True)
    (REDIS_DIR / "appendonly.aof").unlink(missing_ok=True)  # Redis 6's single file


def aof_tail() -> Path:
    """The AOF file Redis appends its writes to: the last incremental file of its manifest (Redis 7), or the
    single appendonly.aof of Redis 6."""
    manifests = list(AOF_DIR.glob("*.manifest"))
    if not manifests:
        return REDIS_DIR / "appendonly.aof"
    entries = [dict(zip(t[::2], t[1::2])) for t in (line.split() for line in manifests[0].read_text().splitlines())]
    return AOF_DIR / [e["file"] for e in entries if e.get("type") == "i"][-1]



def redis_restart(run: Run) -> None:
    """Redis without persistence stopped and started: the counters are gone, and order-api must rebuild them by
    itself (no operator reload). The fault ends when Redis answers; the first 200 after it shows the healing."""
    at(run.load, around_sell_out(run.load, 1.0))
    run.fault_start = time.monotonic()
    blocking(stack.control, "stop", "redis")
    run.fault_end, restored = start_redis(run.item, appendonly=False)
    run.redis_restored = {"restored": restored}
    run.description = "Redis restarted (counters lost), no operator reload"



def redis_with_aof() -> None:
    """Before the item is set up: the stack's Redis replaced by one with AOF everysec, starting empty."""
    stack.control("stop", "redis")
    forget_aof()
    stack.control("start", "redis", env=redis_env(appendonly=True))


def redis_without_aof() -> None:
    """After the run: the stack's normal Redis (no persistence) again, for the scenarios after this one."""
    stack.control("stop", "redis")
    forget_aof()
    stack.control("start", "redis", env=redis_env(appendonly=False))


def redis_aof_kill(run: Run) -> None:
    """Redis with AOF everysec killed with SIGKILL and started again from its AOF, half a second before the
    sell-out. A killed process loses nothing the kernel already has, so the AOF is first cut back to its length
    LOST_TAIL_S before the kill, as a crash of the machine could leave it with everysec: Redis comes back with
    the counter of a second ago, higher than baseline − Σ committed. order-api must not sell from it."""
    load, item = run.load, run.item
    kill_at = around_sell_out(load, 0.5)
    at(load, kill_at - LOST_TAIL_S)
    tail = aof_tail()
    synced = tail.stat().st_size
    at(load, kill_at)
    run.fault_start = time.monotonic()
    try:
        before = blocking(redis_counter, item)
    except RedisUnavailable:
        before = None
    blocking(stack.control, "kill", "redis")
    if aof_tail() == tail:
        at_kill = tail.stat().st_size
        os.truncate(tail, synced)
        cut = f"AOF cut back to its length {LOST_TAIL_S:g} s before ({at_kill} → {synced} bytes)"
    else:  # rewritten meanwhile: cutting the new file at the old length would make no sense
        cut = "AOF rewritten during the last second, not cut"
    run.fault_end, restored = start_redis(item, appendonly=True)
    generation, state = blocking(current_generation, item)
    truth = state.baseline - blocking(committed_units, item, generation)
    run.redis_restored = {"counter_before_kill": before, "restored": restored,
                          "baseline_minus_committed": truth,
                          "stale_by": None if restored is None else restored - truth}
    run.description = f"Redis (AOF everysec) killed with SIGKILL, {cut}, restarted from it"
