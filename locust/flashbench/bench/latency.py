"""The latencies the services measured themselves, from their Prometheus histograms: the order endpoint's (the
server's time, apart from the client's queueing) and the pipeline's end to end (order accepted → applied)."""
import requests

from flashbench.stack import instances


def end_to_end_latency(topology: str) -> dict:
    """Order accepted → applied in the stock database: p50/p99/max (ms) from the stock-consumers' histogram
    `flashstock.consumer.event.latency`, which covers everything they applied since they started (the services restart per run)."""
    return percentiles_ms(histogram(instances("stock-consumer", topology), "flashstock_consumer_event_latency_seconds", ""))


def server_histogram(gate: str, topology: str) -> dict:
    """The order endpoint's own latency histogram, as the order-apis measured it (the request's arrival to its
    answer), to tell the server's time from the client's queueing."""
    return histogram(instances("order-api", topology), "flashstock_order_latency_seconds", f'gate="{gate}"')


def histogram(ports: list[int], metric: str, match: str) -> dict:
    """A Prometheus histogram of a service's instances, summed over them and over the series whose labels contain
    `match`: cumulative counts by bucket upper bound (s), and the max; empty when no instance can be read."""
    texts = []
    for port in ports:
        try:
            texts.append(requests.get(f"http://127.0.0.1:{port}/actuator/prometheus", timeout=10).text)
        except requests.RequestException:
            continue
    counts: dict[float, float] = {}
    maximum = 0.0
    for line in "\n".join(texts).splitlines():
        if match not in line:
            continue
        if line.startswith(metric + "_bucket{"):
            le = line.split('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            counts[bound] = counts.get(bound, 0.0) + float(line.rsplit(" ", 1)[1])
        elif line.startswith(metric + "_max{"):
            maximum = max(maximum, float(line.rsplit(" ", 1)[1]))
    return {"counts": counts, "max": maximum} if counts else {}


def since(before: dict, after: dict) -> dict:
    """The observations of a histogram between two readings (its max is the later reading's: a decaying max)."""
    if not after:
        return {}
    earlier = before.get("counts", {})
    return {"counts": {le: n - earlier.get(le, 0.0) for le, n in after["counts"].items()}, "max": after["max"]}


def percentiles_ms(h: dict) -> dict:
    """p50/p99/p99.9 (ms, histogram bucket upper bounds) and max of a histogram."""
    buckets = sorted(h.get("counts", {}).items())
    if not buckets or buckets[-1][1] == 0:
        return {}
    total = buckets[-1][1]

    def upper_bound(q: float) -> float:
        return next(le for le, count in buckets if count >= q * total)

    return {"events": int(total), "p50_ms": upper_bound(0.5) * 1000, "p99_ms": upper_bound(0.99) * 1000,
            "p99.9_ms": upper_bound(0.999) * 1000, "max_ms": h["max"] * 1000}
