"""CPU per order for every process of a run, read from /proc: the figure that guides the engine's tuning.

A sampler thread reads each process's user + system time once a second while the run goes on; afterwards the
samples are matched with the number of answers Locust had counted at the same moment (its history CSV), so
that the cost is per order answered, over the steady part of the run and over the whole of it.
"""
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_S = os.sysconf("SC_CLK_TCK")
ENGINE = ("order-api", "outbox-relay", "stock-consumer", "mariadb", "redis", "kafka")


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process (all its threads) so far; None when it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: the fields that follow start after the last ')'
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S


@dataclass(frozen=True)
class Sample:
    at: float  # epoch seconds
    cpu_s: dict


class CpuSampler:
    """Samples the CPU seconds of named processes every `interval_s` until stopped."""

    def __init__(self, pids: dict, interval_s: float = 1.0):
        self.pids = dict(pids)
        self.interval_s = interval_s
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)

    def add(self, name: str, pid: int) -> None:
        self.pids[name] = pid

    def sample(self) -> None:
        self.samples.append(Sample(time.time(), {name: cpu_seconds(pid) for name, pid in self.pids.items()}))

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def __enter__(self) -> "CpuSampler":
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()


def answered_at(history: list[tuple[float, int]], at: float) -> float:
    """Answers counted by `at` (epoch s), interpolated between Locust's once-a-second history rows."""
    if not history or at <= history[0][0]:
        return float(history[0][1]) if history and at >= history[0][0] else 0.0
    for (t0, n0), (t1, n1) in zip(history, history[1:]):
        if t0 <= at <= t1:
            return n0 + (n1 - n0) * ((at - t0) / (t1 - t0) if t1 > t0 else 1.0)
    return float(history[-1][1])


def per_order_us(first: Sample, last: Sample, orders: float) -> dict:
    """CPU µs per order of each process between two samples (None for a process missing from either)."""
    out = {}
    for name in last.cpu_s:
        a, b = first.cpu_s.get(name), last.cpu_s.get(name)
        out[name] = None if a is None or b is None or orders <= 0 else (b - a) / orders * 1e6
    return out


def first_known(samples: list[Sample]) -> Sample:
    """The first sample, with each process's first known CPU time (the client starts after the first sample)."""
    return last_known(list(reversed(samples)))


def last_known(samples: list[Sample]) -> Sample:
    """The last sample, with each process's last known CPU time (the client exits before the drain ends)."""
    cpu_s = {}
    for s in samples:
        cpu_s.update({name: value for name, value in s.cpu_s.items() if value is not None})
    return Sample(samples[-1].at, cpu_s)


def steady_window(samples: list[Sample], history: list[tuple[float, int]], total: int,
                  start_share: float = 0.25, end_share: float = 0.95) -> tuple[Sample, Sample, float] | None:
    """The first and last sample within the steady part (from `start_share` to `end_share` of the answers)
    and the answers between them; None when the run was too short to have one."""
    inside = [s for s in samples if start_share * total <= answered_at(history, s.at) <= end_share * total]
    if len(inside) < 2:
        return None
    first, last = inside[0], inside[-1]
    return first, last, answered_at(history, last.at) - answered_at(history, first.at)


def costs(samples: list[Sample], history: list[tuple[float, int]], total: int) -> dict:
    """CPU µs per order of each process over the steady part (None when the run had none) and the whole run."""
    window = steady_window(samples, history, total)
    steady = None if window is None else per_order_us(window[0], window[1], window[2])
    return {"steady": steady, "whole": per_order_us(first_known(samples), last_known(samples), total)}


def write_samples(path: Path, sampler: CpuSampler, history: list[tuple[float, int]]) -> None:
    """The raw samples as CSV: when, the answers counted by then, and each process's CPU seconds."""
    names = list(sampler.pids)
    with path.open("w", encoding="utf-8") as f:
        f.write("epoch_s,answered," + ",".join(f"{n}_cpu_s" for n in names) + "\n")
        for s in sampler.samples:
            f.write(f"{s.at:.3f},{answered_at(history, s.at):.0f},"
                    + ",".join("" if s.cpu_s.get(n) is None else f"{s.cpu_s[n]:.2f}" for n in names) + "\n")


def role(name: str) -> str:
    """The engine's role of a process: redis-3 and redis are redis, order-api-2 is order-api."""
    return next((r for r in (*ENGINE,) if name == r or (name.startswith(r + "-") and name[len(r) + 1:].isdigit())), name)


def processes_by_role(pids: dict) -> dict:
    """How many processes each role has."""
    counts: dict[str, int] = {}
    for name in pids:
        counts[role(name)] = counts.get(role(name), 0) + 1
    return counts


def by_role(figures: dict | None) -> dict | None:
    """Figures per process summed by role (None when any process of the role has none)."""
    if figures is None:
        return None
    out: dict = {}
    for name, value in figures.items():
        r = role(name)
        out[r] = None if value is None or (r in out and out[r] is None) else out.get(r, 0.0) + value
    return out


def table(steady: dict | None, whole: dict, client: str) -> str:
    """Markdown: CPU µs per order by process, steady part and whole run, with the engine's total."""

    def fmt(value: float | None) -> str:
        return "—" if value is None else f"{value:.0f}"

    def total(figures: dict | None) -> float | None:
        if not figures or any(figures.get(n) is None for n in ENGINE):
            return None
        return sum(figures[n] for n in ENGINE)

    lines = ["| process | CPU µs per order, steady part | CPU µs per order, whole run |", "|---|---:|---:|"]
    for name in (*ENGINE, client):
        lines.append(f"| {name} | {fmt((steady or {}).get(name))} | {fmt(whole.get(name))} |")
    lines.append(f"| **engine (all but {client})** | **{fmt(total(steady))}** | **{fmt(total(whole))}** |")
    return "\n".join(lines)
