"""One benchmark run, end to end: stack and services up with the given settings, stock reset, the Locust
scenario headless, the drain measured, the reconciliation run, and a results folder with table and plots.

    scripts/bench [--requests 100000] [--rps 1000] [--arrivals smooth|burst] [--tomcat-threads 200] ...

Exits non-zero when there were failures, the achieved rate fell below 99 % of the target (--min-rate), the
pipeline did not drain, or the reconciliation failed.
"""
