"""`scripts/bench` (python -m flashbench.bench)."""
import sys

from flashbench.bench.cli import main

sys.exit(main())
