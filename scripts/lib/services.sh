# shellcheck shell=bash
# The three services for scripts/stack: their jar, environment, AOT cache, start, readiness and health. A second
# instance (order-api-2, ...: the cluster topology) runs its first's jar and AOT cache.

service_module() { echo "${1%-2}"; }

service_jar() {
  local jar
  # the first built jar in name order that is neither a plain jar nor a sources jar
  for jar in "$ROOT/$1/target/$1"-*.jar; do
    [[ -f $jar && $jar != *-plain* && $jar != *sources* ]] && { echo "$jar"; return; }
  done
  die "no jar for $1: build first (./mvnw -DskipTests package)"
}

service_env() {
  export SPRING_DATA_REDIS_PORT=$REDIS_PORT REDIS_PORT
  # the cluster topology: Lettuce (order-api) and Redisson (stock-consumer) in cluster mode, from every node's address
  if [[ $TOPOLOGY == cluster ]]; then
    export SPRING_DATA_REDIS_CLUSTER_NODES=${SPRING_DATA_REDIS_CLUSTER_NODES:-$(redis_cluster_nodes)}
  fi
  ORDERS_DB_URL=${ORDERS_DB_URL:-$(db_url orders)} STOCK_DB_URL=${STOCK_DB_URL:-$(db_url stock)}
  export ORDERS_DB_URL STOCK_DB_URL
  # order-api's reconciliation reads the replica, at the primary's position (docs/architecture.md); a fenced node
  # answers nothing until rebuilt, and the report reads the primary meanwhile
  if db_replica_on; then
    export FLASHSTOCK_RECONCILIATION_REPLICA_URL=${FLASHSTOCK_RECONCILIATION_REPLICA_URL:-jdbc:mysql://127.0.0.1:$(mariadb_port "$(db_other "$(db_primary)")")/orders}
    export FLASHSTOCK_RECONCILIATION_REPLICA_USERNAME=$DB_READER_USER FLASHSTOCK_RECONCILIATION_REPLICA_PASSWORD=$DB_READER_PASSWORD
  fi
  export DB_USER DB_PASSWORD STOCK_ADMIN_TOKEN FLASHSTOCK_TOKEN_KEY FLASHSTOCK_RATE_LIMIT_ENABLED
  export KAFKA_BOOTSTRAP_SERVERS=${KAFKA_BOOTSTRAP_SERVERS:-$KAFKA_BOOTSTRAP}
  export STOCK_TOPIC
  # where order-api's reconciliation and dashboard find the other two services, on whatever ports they run
  export STOCK_CONSUMER_URL=${STOCK_CONSUMER_URL:-http://127.0.0.1:${SERVICE_PORT[stock-consumer]}}
  export OUTBOX_RELAY_URL=${OUTBOX_RELAY_URL:-http://127.0.0.1:${SERVICE_PORT[outbox-relay]}}
  # the dashboard's CPU of MariaDB and Kafka, from their pid files: everything runs on this one box
  # (docs/dashboard.md: elsewhere, an agent's Prometheus text); a cluster's brokers are summed
  local brokers=("file:$STATE/kafka/kafka.pid") n
  if [[ $TOPOLOGY == cluster ]]; then
    brokers=()
    for ((n = 1; n <= KAFKA_NODES; n++)); do brokers+=("file:$(kafka_node_dir "$n")/kafka.pid"); done
  fi
  export FLASHSTOCK_DASHBOARD_PROCESSCPU_MARIADB=${FLASHSTOCK_DASHBOARD_PROCESSCPU_MARIADB:-file:$STATE/mariadb/mariadb.pid}
  export FLASHSTOCK_DASHBOARD_PROCESSCPU_KAFKA=${FLASHSTOCK_DASHBOARD_PROCESSCPU_KAFKA:-$(IFS=,; echo "${brokers[*]}")}
}

# On a JDK with AOT caches (25+: JEP 483 and 514, classes loaded and linked ahead of time) a service starts from
# a cache made by one training run per build of its jar, on the jar's extracted layout (a cache names plain jars).
# It halves order-api's start-up here (docs/performance.md). FLASHSTOCK_AOT=off starts from the jar as built.
# FLASHSTOCK_AOT_DIR (default: the state folder's services/) lets a second stack use the caches another trained
# for the same jars (a cache names the absolute paths it was made on, so it is shared, not copied).
# Sets LAUNCH to the arguments that start the service; a failed training run falls back to the jar.
service_launch() {
  local name=$1 jar=$2 java=$3 port=$4 aot; aot=${FLASHSTOCK_AOT_DIR:-$STATE/services}/$(service_module "$1")-aot
  local app=$aot/app/${jar##*/} stamp began=$SECONDS
  LAUNCH=(-jar "$jar")
  [[ ${FLASHSTOCK_AOT:-on} == on ]] || return 0
  "$java" -XX:+PrintFlagsFinal -version 2>/dev/null | grep ' AOTCacheOutput ' >/dev/null || return 0
  # order-api's training run can take load: its warm-up places FLASHSTOCK_AOT_TRAINING_ORDERS real orders through the
  # stack, then exits, so the cache also holds the order path's JIT profiles (JEP 515); else it exits at refresh
  local training=(-Dspring.context.exit=onRefresh) orders=${FLASHSTOCK_AOT_TRAINING_ORDERS:-0}
  if [[ $(service_module "$name") == order-api && $orders -gt 0 ]]; then
    training=(-Dflashstock.warmup.enabled=true -Dflashstock.warmup.requests="$orders" -Dflashstock.warmup.deadline=5m
              -Dflashstock.warmup.exit-after=true)
  else orders=0; fi
  stamp="$(stat -c '%Y %s' "$jar") $SERVICE_HEAP $SERVICE_GC ${SERVICE_JAVA_OPTS:-} $orders"
  if [[ $(cat "$aot/stamp" 2>/dev/null) != "$stamp" ]]; then
    rm -rf "$aot" && mkdir -p "$aot"
    log "$name: AOT cache training run (once per build of the jar)"
    # shellcheck disable=SC2086
    if "$java" -Djarmode=tools -jar "$jar" extract --destination "$aot/app" >"$aot/training.log" 2>&1 &&
       "$java" -Xms"$SERVICE_HEAP" -Xmx"$SERVICE_HEAP" -XX:+Use"$SERVICE_GC"GC ${SERVICE_JAVA_OPTS:-} \
         -XX:AOTCacheOutput="$aot/app.aot" "${training[@]}" \
         -jar "$app" --server.port="$port" >>"$aot/training.log" 2>&1; then
      echo "$stamp" >"$aot/stamp"
      log "$name: AOT cache trained in $((SECONDS - began)) s"
    else
      log "$name: AOT training failed (see $aot/training.log); starting from the jar"
      return 0
    fi
  fi
  LAUNCH=(-XX:AOTCache="$aot/app.aot" -jar "$app")
}

service_up() {
  local name=$1 dir=$STATE/services pid=$STATE/services/$1.pid port=${SERVICE_PORT[$1]}
  mkdir -p "$dir"
  if pid_alive "$pid"; then log "$name already running (pid $(cat "$pid"))"; return; fi
  port_busy "$port" && die "port $port is in use by another process"
  local jar java; jar=$(service_jar "$(service_module "$name")") java=$(pick_java)
  service_env
  service_launch "$name" "$jar" "$java" "$port"
  # shellcheck disable=SC2086
  nohup "$java" -Xms"$SERVICE_HEAP" -Xmx"$SERVICE_HEAP" -XX:+Use"$SERVICE_GC"GC ${SERVICE_JAVA_OPTS:-} \
    "${LAUNCH[@]}" --server.port="$port" >"$dir/$name.log" 2>&1 &
  echo $! >"$pid"
}

service_wait() {
  local name=$1 port=${SERVICE_PORT[$1]}
  wait_for "$name" "${SERVICE_START_TIMEOUT:-90}" "$STATE/services/$name.log" \
    curl -fsS "http://127.0.0.1:$port/actuator/health/readiness"
  log "$name ready on 127.0.0.1:$port"
}

service_healthy() { curl -fsS "http://127.0.0.1:${SERVICE_PORT[$1]}/actuator/health/readiness"; }
