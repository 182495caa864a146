#!/usr/bin/env bash
# usage: measure.sh OUTDIR  (env: ports exported); runs consumer-kill with a group watcher and the consumer's log
set -u
out=$1; mkdir -p "$out"
cd /work/wt/recovery
. /tmp/recovery/env.sh
CP=$(cat .stack/kafka/classpath.txt)
while pgrep -f 'flashbench|locust|vegeta|scripts/bench|oha ' >/dev/null; do sleep 5; done
{ date -u; uptime; } > "$out/load.txt"
java -cp "$CP:/tmp/recovery/poller" GroupWatch 127.0.0.1:$KAFKA_PORT stock-consumer 600 > "$out/group.log" 2>&1 &
gw=$!
tail -n0 -F .stack/services/stock-consumer.log > "$out/stock-consumer.log" 2>/dev/null &
tl=$!
: > "$out/console.log"
python3 /tmp/recovery/applied_watch.py $STOCK_CONSUMER_PORT "$out/console.log" 600 > "$out/applied.log" 2>&1 &
aw=$!
scripts/faults --scenarios consumer-kill --rate 300 --duration 40 --out "$out" 2>&1 |
  while IFS= read -r line; do echo "$(date +%H:%M:%S.%3N) $line"; done > "$out/console.log"
rc=${PIPESTATUS[0]}
{ date -u; uptime; } >> "$out/load.txt"
kill $gw $tl $aw
echo "rc=$rc"
