# shellcheck shell=bash
# The single-node KRaft Kafka broker for scripts/stack: its jars from Maven Central, its configuration,
# start, topics and health.

kafka_classpath() {
  # a private stack (fault tests) may reuse the main stack's resolved classpath; the broker's version is the root
  # pom's kafka-broker.version, the one place it is declared
  local cp=${KAFKA_CLASSPATH_FILE:-$STATE/kafka/classpath.txt} version
  version=$(kafka_version)
  if [[ ! -s $cp || $ROOT/scripts/kafka/pom.xml -nt $cp || $(cat "$cp.version" 2>/dev/null) != "$version" ]]; then
    log "resolving the Kafka broker jars from Maven Central"
    mkdir -p "$(dirname "$cp")"
    mvnw -f "$ROOT/scripts/kafka/pom.xml" dependency:build-classpath -Dkafka.version="$version" -Dmdep.outputFile="$cp" \
      || die "could not resolve the Kafka broker's jars (needs Maven Central)"
    echo "$version" >"$cp.version"
  fi
  cat "$cp"
}

kafka_version() {
  local version
  version=$(sed -n 's:.*<kafka-broker.version>\(.*\)</kafka-broker.version>.*:\1:p' "$ROOT/pom.xml")
  [[ -n $version ]] || die "no kafka-broker.version in $ROOT/pom.xml"
  echo "$version"
}

kafka_config() {
  local dir=$STATE/kafka
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=$KAFKA_PARTITIONS
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
EOF
  cat >"$dir/log4j2.properties" <<EOF
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $dir/kafka.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = warn
logger.apache.name = org.apache.kafka
logger.apache.level = warn
logger.started.name = kafka.server.KafkaRaftServer
logger.started.level = info
EOF
}

kafka_java() { "$(pick_java)" -Dlog4j2.configurationFile="$STATE/kafka/log4j2.properties" -cp "$1" "${@:2}"; }

kafka_up() {
  local dir=$STATE/kafka pid=$STATE/kafka/kafka.pid
  mkdir -p "$dir"
  if pid_alive "$pid"; then log "kafka already running on $KAFKA_PORT"; return; fi
  port_busy "$KAFKA_PORT" && die "port $KAFKA_PORT is in use by another process (set KAFKA_PORT)"
  port_busy "$KAFKA_CONTROLLER_PORT" && die "port $KAFKA_CONTROLLER_PORT is in use (set KAFKA_CONTROLLER_PORT)"
  local cp; cp=$(kafka_classpath)
  kafka_config
  if [[ ! -f $dir/data/meta.properties ]]; then
    local id; id=$(kafka_java "$cp" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)
    log "formatting kafka storage (cluster $id)"
    kafka_java "$cp" kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 \
      || { tail -n 20 "$dir/format.log" >&2; die "kafka storage format failed"; }
  fi
  nohup "$(pick_java)" -Xms256m -Xmx"$KAFKA_HEAP" -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -cp "$cp" kafka.Kafka "$dir/server.properties" \
    >"$dir/stdout.log" 2>&1 &
  echo $! >"$pid"
  wait_for kafka 60 "$dir/stdout.log" kafka_topics "$cp" --list
  kafka_topics "$cp" --create --if-not-exists --topic "$STOCK_TOPIC" --partitions "$KAFKA_PARTITIONS" --replication-factor 1 >/dev/null
  kafka_topics "$cp" --create --if-not-exists --topic "$STOCK_TOPIC-dlt" --partitions "$KAFKA_PARTITIONS" --replication-factor 1 >/dev/null
  log "kafka up on 127.0.0.1:$KAFKA_PORT (topics $STOCK_TOPIC, $STOCK_TOPIC-dlt: $KAFKA_PARTITIONS partitions)"
}

kafka_topics() { kafka_java "$1" org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" "${@:2}"; }

kafka_healthy() { kafka_topics "$(kafka_classpath)" --list; }
