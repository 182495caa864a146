# shellcheck shell=bash
# The KRaft Kafka brokers of scripts/stack: their jars from Maven Central, their configuration, start, topics
# and health. The single topology runs one broker ($STATE/kafka); the cluster topology three (lib/cluster.sh).

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

# kafka_config <dir> <node id> <port> <controller port> <controller.quorum.voters> <replication> <min ISR>:
# one node, broker and controller in one process; replication and min ISR hold for the internal topics too
kafka_config() {
  local dir=$1 node=$2 port=$3 cport=$4 voters=$5 replication=$6 isr=$7
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=$KAFKA_PARTITIONS
default.replication.factor=$replication
offsets.topic.replication.factor=$replication
transaction.state.log.replication.factor=$replication
transaction.state.log.min.isr=$isr
share.coordinator.state.topic.replication.factor=$replication
share.coordinator.state.topic.min.isr=$isr
min.insync.replicas=$isr
unclean.leader.election.enable=false
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
EOF
  kafka_log4j "$dir/log4j2.properties" "$dir/kafka.log"
}

# kafka_log4j <file> <log>: a log4j configuration that logs the broker's start and its warnings to <log>
kafka_log4j() {
  cat >"$1" <<EOF
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = $2
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

# the command-line tools (storage, topics) log through the configuration KAFKA_TOOLS_LOG4J names
kafka_java() { "$(pick_java)" -Dlog4j2.configurationFile="$KAFKA_TOOLS_LOG4J" -cp "$1" "${@:2}"; }

# kafka_start <dir> <classpath> <pid file> <cluster id>: formats the node's storage the first time, then starts it
kafka_start() {
  local dir=$1 cp=$2 pid=$3 id=$4
  if [[ ! -f $dir/data/meta.properties ]]; then
    log "formatting kafka storage in $dir (cluster $id)"
    kafka_java "$cp" kafka.tools.StorageTool format -t "$id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 \
      || { tail -n 20 "$dir/format.log" >&2; die "kafka storage format failed"; }
  fi
  nohup "$(pick_java)" -Xms256m -Xmx"$KAFKA_HEAP" -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -cp "$cp" kafka.Kafka "$dir/server.properties" \
    >"$dir/stdout.log" 2>&1 &
  echo $! >"$pid"
}

kafka_random_id() { kafka_java "$1" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1; }

kafka_up() {
  local dir=$STATE/kafka pid=$STATE/kafka/kafka.pid
  mkdir -p "$dir"
  if pid_alive "$pid"; then log "kafka already running on $KAFKA_PORT"; return; fi
  port_busy "$KAFKA_PORT" && die "port $KAFKA_PORT is in use by another process (set KAFKA_PORT)"
  port_busy "$KAFKA_CONTROLLER_PORT" && die "port $KAFKA_CONTROLLER_PORT is in use (set KAFKA_CONTROLLER_PORT)"
  local cp id=""; cp=$(kafka_classpath)
  kafka_config "$dir" 1 "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" "1@127.0.0.1:$KAFKA_CONTROLLER_PORT" 1 1
  [[ -f $dir/data/meta.properties ]] || id=$(kafka_random_id "$cp")
  kafka_start "$dir" "$cp" "$pid" "$id"
  wait_for kafka 60 "$dir/stdout.log" kafka_topics "$cp" --list
  kafka_topics_create "$cp" 1
  log "kafka up on 127.0.0.1:$KAFKA_PORT (topics $STOCK_TOPIC, $STOCK_TOPIC-dlt: $KAFKA_PARTITIONS partitions)"
}

# kafka_topics_create <classpath> <replication> [topic settings...]: the stock topic and its dead-letter topic
kafka_topics_create() {
  local cp=$1 replication=$2 topic
  for topic in "$STOCK_TOPIC" "$STOCK_TOPIC-dlt"; do
    kafka_topics "$cp" --create --if-not-exists --topic "$topic" --partitions "$KAFKA_PARTITIONS" \
      --replication-factor "$replication" "${@:3}" >/dev/null
  done
}

kafka_topics() { kafka_java "$1" org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BOOTSTRAP" "${@:2}"; }

kafka_healthy() { kafka_topics "$(kafka_classpath)" --list; }
