#!/usr/bin/env bash
# Issue 28, target 3: the server's median under Locust and under vegeta at the same rate, side by side on one
# stack (measure.py says what is recorded). The services run with histograms on their Redis and database steps.
#   flock /work/wt/box.lock docs/results/median-gap/run.sh rate-1000 --rate 1000 --warm-seconds 30
#   flock /work/wt/box.lock docs/results/median-gap/run.sh rate-500 --rate 500 --warm-seconds 60
#   GAP_JAVA_OPTS=-Dflashstock.order.group-commit.writers=2 flock /work/wt/box.lock \
#     docs/results/median-gap/run.sh rate-500-writers-2 --rate 500 --warm-seconds 60 --phases locust,vegeta
#   flock /work/wt/box.lock docs/results/median-gap/run.sh rate-500-clumps --rate 500 --warm-seconds 60 \
#     --phases vegeta,clumps,locust,clumps,vegeta
#   flock /work/wt/box.lock docs/results/median-gap/run.sh rate-500-locust-nice --rate 500 --warm-seconds 60 \
#     --phases locust-nice,locust,locust-nice,locust
# The first argument names the folder of that run's results, the others go to measure.py; GAP_JAVA_OPTS are added
# to the services' JVM options.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HERE=$ROOT/docs/results/median-gap
OUT=$HERE/$1
shift
mkdir -p "$OUT"
export FLASHSTOCK_AOT=off SERVICE_START_TIMEOUT=300 \
  SERVICE_JAVA_OPTS="-Dmanagement.metrics.distribution.percentiles-histogram.flashstock.order.db=true -Dmanagement.metrics.distribution.percentiles-histogram.flashstock.order.redis=true ${GAP_JAVA_OPTS:-}"
# the open model in clumps (measure.py --phases clumps,...), built from the Go standard library alone
(cd "$HERE/clumps" && go build -o "${CLUMPS_BIN:-/tmp/flashstock-clumps}" .)
"$ROOT/scripts/stack" up
"$ROOT/scripts/stack" services up
trap '"$ROOT/scripts/stack" services down || true' EXIT
echo "start $(date -u +%FT%TZ) $(git -C "$ROOT" rev-parse --short HEAD) ${GAP_JAVA_OPTS:-}, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/load.txt"
PYTHONPATH=$ROOT/locust "$ROOT/.venv/bin/python" "$HERE/measure.py" --out "$OUT" "$@" | tee "$OUT/run.log"
echo "end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt"
