"""Turns Locust's CSV output into the percentile table people paste in their write-ups, and plots it."""
import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

# the rows of the usual table, slowest first, as Locust names its percentile columns
PERCENTILE_ROWS = ("100%", "99.99%", "99.9%", "99%", "98%", "95%", "90%", "80%", "75%", "66%", "50%")


@dataclass(frozen=True)
class RunStats:
    """One run's aggregate figures, in milliseconds where they are times."""
    percentiles: Mapping[str, float]
    average_ms: float
    requests: int
    failures: int
    achieved_rps: float

    def value(self, row: str) -> str:
        if row == "average":
            return f"{self.average_ms:.1f}"
        if row == "requests":
            return str(self.requests)
        if row == "failures":
            return str(self.failures)
        if row == "achieved req/s":
            return f"{self.achieved_rps:.1f}"
        return _ms(self.percentiles[row])


TABLE_ROWS = PERCENTILE_ROWS + ("average", "requests", "failures", "achieved req/s")


def _ms(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def from_result(result: dict) -> RunStats:
    """The figures the locustfile wrote when the run ended; the 100% row is the exact maximum."""
    percentiles = {row: float(result["percentiles_ms"][row]) for row in PERCENTILE_ROWS if row != "100%"}
    percentiles["100%"] = float(result["max_ms"])
    return RunStats(percentiles=percentiles, average_ms=float(result["average_ms"]), requests=int(result["requests"]),
                    failures=int(result["failures"]), achieved_rps=float(result["achieved_rps"]))


def percentile_table(columns: Sequence[tuple[str, RunStats]]) -> str:
    """A Markdown table with a column per run and the usual rows (times in ms)."""
    header = "| | " + " | ".join(name for name, _ in columns) + " |"
    rule = "|---|" + "---:|" * len(columns)
    lines = [header, rule]
    for row in TABLE_ROWS:
        label = row if row in ("average", "requests", "failures", "achieved req/s") else f"{row} (ms)"
        if row == "average":
            label = "average (ms)"
        lines.append(f"| {label} | " + " | ".join(stats.value(row) for _, stats in columns) + " |")
    return "\n".join(lines)


def read_history(history_csv: Path) -> list[dict]:
    """Locust's *_stats_history.csv rows of the Aggregated series, with numbers parsed (N/A skipped)."""
    out = []
    with history_csv.open(newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r.get("Name") != "Aggregated":
                continue
            try:
                out.append({
                    "t": int(r["Timestamp"]),
                    "rps": float(r["Requests/s"]),
                    "p50": float(r["50%"]),
                    "p95": float(r["95%"]),
                    "p99": float(r["99%"]),
                    "p999": float(r["99.9%"]),
                    "max": float(r["100%"]),
                    "users": int(r["User Count"]),
                    "requests": int(r["Total Request Count"]),
                    "failures": int(r.get("Total Failure Count") or 0),
                })
            except (ValueError, KeyError):
                continue
    return out


def plot_run(history: Iterable[dict], out_dir: Path, title: str) -> list[Path]:
    """Latency percentiles over time and requests per second over time, as two PNGs."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    history = list(history)
    if not history:
        return []
    t0 = history[0]["t"]
    t = [h["t"] - t0 for h in history]
    written = []

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for key, label in (("p50", "p50"), ("p95", "p95"), ("p99", "p99"), ("p999", "p99.9"), ("max", "max")):
        ax.plot(t, [h[key] for h in history], label=label, linewidth=1.2)
    ax.set_yscale("log")
    ax.set_xlabel("seconds since start")
    ax.set_ylabel("response time (ms, log scale)")
    ax.set_title(f"{title}: latency percentiles (Locust, last 10 s at each point)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    path = out_dir / "latency.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)

    fig, ax = plt.subplots(figsize=(9, 3.5))
    ax.plot(t, [h["rps"] for h in history], color="tab:green", linewidth=1.2)
    ax.set_xlabel("seconds since start")
    ax.set_ylabel("requests/s")
    ax.set_title(f"{title}: requests per second")
    ax.grid(True, alpha=0.3)
    path = out_dir / "rps.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


def plot_comparison(columns: Sequence[tuple[str, RunStats]], path: Path, title: str) -> Path:
    """One grouped bar chart of p50 / p99 / p99.9 / max per configuration."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = ("50%", "99%", "99.9%", "100%")
    width = 0.8 / len(rows)
    fig, ax = plt.subplots(figsize=(max(7, 1.6 * len(columns)), 4.5))
    for i, row in enumerate(rows):
        xs = [j + i * width for j in range(len(columns))]
        ax.bar(xs, [max(stats.percentiles[row], 0.1) for _, stats in columns], width, label=row.replace("100%", "max"))
    ax.set_xticks([j + width * (len(rows) - 1) / 2 for j in range(len(columns))])
    ax.set_xticklabels([name for name, _ in columns], rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("response time (ms, log scale)")
    ax.set_title(title)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
