"""The README bench's scenario (locust/locustfile.py) unchanged, plus the wall-clock start of every request, written
to ARRIVALS_FILE when Locust quits: what the server is offered, instant by instant."""
import os

from locust import events

from locustfile import OrderUser  # noqa: F401 (the scenario's user, found by Locust in this module)

_starts: list[float] = []


@events.request.add_listener
def _record(start_time, **_kwargs):
    _starts.append(start_time)


@events.quitting.add_listener
def _dump(**_kwargs):
    with open(os.environ["ARRIVALS_FILE"], "w", encoding="utf-8") as f:
        f.write("\n".join(f"{t:.6f}" for t in _starts))
