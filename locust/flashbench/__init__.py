"""Benchmark harness of flashstock: the Locust scenario's settings, runs, summaries, plots and matrices."""
