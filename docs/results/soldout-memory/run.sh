#!/usr/bin/env bash
# Issue 28, target 1: vegeta against a sold-out item, the order-api of main (before) and of branch i28-soldout
# (after), one after the other in one session on the same stack (AOT cache off for both, same JDK, same settings).
#   flock /work/wt/box.lock nice -n 19 docs/results/soldout-memory/run.sh BEFORE_JAR
# BEFORE_JAR: order-api's jar built from main (950870c). The branch's jar is order-api/target's, put back at the end.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
OUT=$ROOT/docs/results/soldout-memory
BEFORE_JAR=$1
JAR=$ROOT/order-api/target/order-api-0.1.0-SNAPSHOT.jar
KEEP=$(mktemp)
cp "$JAR" "$KEEP"
# the services stop before the branch's jar is put back: a JVM whose jar is replaced under it fails
trap '"$ROOT/scripts/stack" services down || true; cp "$KEEP" "$JAR"; rm -f "$KEEP"' EXIT
export FLASHSTOCK_AOT=off PYTHONPATH=$ROOT/harness SERVICE_START_TIMEOUT=300

measure() { # label jar rates
  cp "$2" "$JAR"
  "$ROOT/scripts/stack" services up
  echo "$1: services up $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"
  # the JIT's warm-up on the sold-out path, not kept
  "$ROOT/.venv/bin/python" -m flashbench.soldout --rates 5000 --seconds 10 --item "soldout-warm-$1" \
    --out "$(mktemp -d)" >/dev/null
  "$ROOT/.venv/bin/python" -m flashbench.soldout --rates "$3" --seconds 20 --item "soldout-$1" --out "$OUT/$1"
  echo "$1: measured $(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"
  "$ROOT/scripts/stack" services down
}

measure before "$BEFORE_JAR" 5000,10000,15000
measure after "$KEEP" 5000,10000,15000,20000
