"""The one line a tool prints to stderr while it runs, so that stdout keeps its report."""
import sys


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)
