#!/usr/bin/env bash
# usage: run-config.sh NAME JSON  — restarts stock-consumer with SPRING_APPLICATION_JSON=JSON, then measures
set -u
name=$1 json=$2
cd /work/wt/recovery
. /tmp/recovery/env.sh
CP=$(cat .stack/kafka/classpath.txt)
scripts/stack stop stock-consumer
java -cp "$CP:/tmp/recovery/poller" GroupEmpty 127.0.0.1:$KAFKA_PORT stock-consumer 120
export SPRING_APPLICATION_JSON=$json
SERVICE_START_TIMEOUT=400 scripts/stack start stock-consumer
mkdir -p /tmp/recovery/$name && echo "$json" > /tmp/recovery/$name/config.json
/tmp/recovery/measure.sh /tmp/recovery/$name
