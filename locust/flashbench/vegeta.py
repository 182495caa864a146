"""Open-model load with vegeta: requests start at a constant rate whether or not earlier ones were answered, so
a stalled server shows as latency and errors, not as fewer requests (a closed-model client hides it).

vegeta installs from the Go module proxy in about 30 s on this machine (oha, the generator used before, built
from crates.io in 6 min 18 s). Its raw results are encoded as CSV, and the percentiles computed here from
every request, not from buckets.
"""
import csv
import io
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

MODULE = "github.com/tsenart/vegeta/v12"
VERSION = "v12.12.0"
PERCENTILES = ("p50", "p90", "p95", "p99", "p99.9", "p99.99")


def binary() -> str:
    """vegeta on the PATH or in ~/go/bin; installed with `go install` on first use."""
    found = shutil.which("vegeta") or Path.home() / "go" / "bin" / "vegeta"
    if Path(found).exists():
        return str(found)
    subprocess.run(["go", "install", f"{MODULE}@{VERSION}"], check=True)
    return str(Path.home() / "go" / "bin" / "vegeta")


@dataclass(frozen=True)
class Answer:
    started_ns: int
    status: int
    latency_ns: int


@dataclass(frozen=True)
class OpenRun:
    target_rps: float
    requests: int
    achieved_rps: float
    ok: int
    failures: int
    statuses: dict
    average_ms: float
    max_ms: float
    percentiles_ms: dict
    refused: int = 0
    refused_percentiles_ms: dict | None = None
    ok_percentiles_ms: dict | None = None

    @property
    def p99_ms(self) -> float:
        return self.percentiles_ms["p99"]

    @property
    def other_failures(self) -> int:
        """Answers neither 200 nor a 503 refusal: errors, timeouts, other statuses."""
        return self.failures - self.refused


def attack(urls: str | list[str], body: str, rate: float, seconds: float, out: Path, max_workers: int = 2000,
           timeout_s: float = 30) -> list[Answer]:
    """POSTs `body` at `rate`/s for `seconds`, round robin over `urls` (vegeta takes its targets in turn); keeps
    vegeta's raw results in `out`."""
    urls = [urls] if isinstance(urls, str) else urls
    target = "\n".join(f"POST {url}\nContent-Type: application/json\n@{out.with_suffix('.body')}\n" for url in urls)
    out.with_suffix(".body").write_text(body)
    subprocess.run([binary(), "attack", f"-rate={rate:g}/1s", f"-duration={seconds:g}s",
                    f"-max-workers={max_workers}", f"-timeout={timeout_s:g}s", f"-output={out}"],
                   input=target, text=True, check=True)
    encoded = subprocess.run([binary(), "encode", "--to", "csv", str(out)], check=True, capture_output=True,
                             text=True).stdout
    return parse_csv(encoded)


def parse_csv(text: str) -> list[Answer]:
    """vegeta's CSV encoding: timestamp (ns), status code, latency (ns), then bytes, error, body, …"""
    return [Answer(int(row[0]), int(row[1]), int(row[2])) for row in csv.reader(io.StringIO(text)) if row]


def percentile(sorted_values: list[int], p: float) -> int:
    """Nearest rank."""
    if not sorted_values:
        return 0
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def percentiles_ms(sorted_latencies: list[int]) -> dict:
    return {p: percentile(sorted_latencies, float(p[1:])) / 1e6 for p in PERCENTILES}


def summarize(answers: list[Answer], target_rps: float) -> OpenRun:
    """Percentiles of every answer; and, apart, of the 503 refusals, which overload shedding makes."""
    latencies = sorted(a.latency_ns for a in answers)
    refused = sorted(a.latency_ns for a in answers if a.status == 503)
    accepted = sorted(a.latency_ns for a in answers if a.status == 200)
    statuses: dict[int, int] = {}
    for a in answers:
        statuses[a.status] = statuses.get(a.status, 0) + 1
    ok = statuses.get(200, 0)
    span_ns = (max(a.started_ns + a.latency_ns for a in answers) - min(a.started_ns for a in answers)) if answers else 0
    return OpenRun(target_rps=target_rps, requests=len(answers),
                   achieved_rps=ok / (span_ns / 1e9) if span_ns else 0.0, ok=ok, failures=len(answers) - ok,
                   statuses=statuses, average_ms=sum(latencies) / len(latencies) / 1e6 if latencies else 0.0,
                   max_ms=(latencies[-1] / 1e6) if latencies else 0.0,
                   percentiles_ms=percentiles_ms(latencies), refused=len(refused),
                   refused_percentiles_ms=percentiles_ms(refused) if refused else None,
                   ok_percentiles_ms=percentiles_ms(accepted) if accepted else None)


def table(runs: list[OpenRun]) -> str:
    lines = ["| target req/s | answered 200/s | requests | not 200 | of which 503 | p50 (ms) | p90 | p95 | p99 | p99.9 "
             "| p99.99 | max | p99 of 200s | p50 of 503s | p99 of 503s |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in runs:
        pct = " | ".join(f"{r.percentiles_ms[p]:.1f}" for p in PERCENTILES)
        refused = r.refused_percentiles_ms
        shed = f"{refused['p50']:.1f} | {refused['p99']:.1f}" if refused else "— | —"
        ok_p99 = f"{r.ok_percentiles_ms['p99']:.1f}" if r.ok_percentiles_ms else "—"
        lines.append(f"| {r.target_rps:g} | {r.achieved_rps:.0f} | {r.requests} | {r.failures} | {r.refused} | {pct} "
                     f"| {r.max_ms:.1f} | {ok_p99} | {shed} |")
    return "\n".join(lines)
