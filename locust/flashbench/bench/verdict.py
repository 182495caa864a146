"""Whether a benchmark run passes: no failures, the rate achieved, the pipeline drained, the reconciliation
exact."""


def rate_verdict(achieved_rps: float, target_rps: float, min_rate: float) -> str | None:
    """What the summary says of the achieved rate; None when it falls short of min_rate × the target."""
    if min_rate <= 0:
        return "not judged"
    if achieved_rps >= min_rate * target_rps:
        return "ok"
    return None


def passed(failures: int, rate: str | None, drained: bool, reconciled: bool) -> bool:
    """The run's verdict from its failures, its rate's verdict (rate_verdict), the drain and the reconciliation."""
    return failures == 0 and rate is not None and drained and reconciled
