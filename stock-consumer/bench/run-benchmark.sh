#!/usr/bin/env bash
# Throughput (lock mode redisson vs none) and end-to-end latency of the stock-consumer jar, against the stack
# that scripts/stack runs (or REDIS_PORT / MYSQL_PORT / KAFKA_PORT). Appends CSV rows to
# stock-consumer/bench/results/consumer-benchmark.csv (or --out FILE).
#
#   stock-consumer/bench/run-benchmark.sh [--events 50000] [--items 6] [--modes redisson,none]
#                                         [--rate 1000] [--rate-seconds 20] [--out FILE]
#
# Smoke run: stock-consumer/bench/run-benchmark.sh --events 2000 --rate 200 --rate-seconds 3
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
CLASSPATH_FILE=$ROOT/stock-consumer/target/bench-classpath.txt

./mvnw -o -q -B -pl stock-consumer package -DskipTests
./mvnw -o -q -B -pl stock-consumer org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$CLASSPATH_FILE"

exec java -cp "stock-consumer/target/test-classes:stock-consumer/target/classes:$(cat "$CLASSPATH_FILE")" \
  io.flashstock.stock.bench.ConsumerBenchmark "$@"
