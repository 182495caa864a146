# shellcheck shell=bash
# The cluster topology of scripts/stack (`scripts/stack up --cluster`), on this one machine: a Redis Cluster of
# 3 primaries and 3 replicas (redis-1..redis-6 on REDIS_PORT..REDIS_PORT+5, AOF everysec), a Kafka of 3 KRaft
# nodes, each broker and controller (kafka-1..kafka-3: brokers on KAFKA_PORT..+2, controllers on KAFKA_PORT+3..+5),
# the same MariaDB, and two of each service (the second on its first's port + SERVICE_SECOND_OFFSET).

REDIS_NODES=6
KAFKA_NODES=3
# a Redis node's cluster bus listens on its port + this offset (Redis's own default is 10000)
REDIS_CLUSTER_BUS_OFFSET=${REDIS_CLUSTER_BUS_OFFSET:-10000}
# how long a primary may stay unreachable before its replica is promoted (cluster-node-timeout, ms)
REDIS_CLUSTER_NODE_TIMEOUT=${REDIS_CLUSTER_NODE_TIMEOUT:-3000}
SERVICE_SECOND_OFFSET=${SERVICE_SECOND_OFFSET:-10}

redis_node_port() { echo $((REDIS_PORT + $1 - 1)); }
redis_node_dir() { echo "$STATE/redis-cluster/$1"; }
kafka_node_port() { echo $((KAFKA_PORT + $1 - 1)); }
kafka_node_controller_port() { echo $((KAFKA_PORT + KAFKA_NODES + $1 - 1)); }
kafka_node_dir() { echo "$STATE/kafka-cluster/$1"; }

# host:port of every Redis node, comma-separated: spring.data.redis.cluster.nodes
redis_cluster_nodes() {
  local n nodes=()
  for ((n = 1; n <= REDIS_NODES; n++)); do nodes+=("127.0.0.1:$(redis_node_port "$n")"); done
  (IFS=,; echo "${nodes[*]}")
}

kafka_cluster_bootstrap() {
  local n nodes=()
  for ((n = 1; n <= KAFKA_NODES; n++)); do nodes+=("127.0.0.1:$(kafka_node_port "$n")"); done
  (IFS=,; echo "${nodes[*]}")
}

# ---------------------------------------------------------------- Redis Cluster
redis_node_up() {
  local n=$1 port dir; port=$(redis_node_port "$1") dir=$(redis_node_dir "$1")
  mkdir -p "$dir"
  if pid_alive "$dir/redis.pid"; then log "redis-$n already running on $port"; return; fi
  # a node started on other ports than its cluster was made with finds no peer, and no slots on them
  local made_on; made_on=$(awk '$3 ~ /myself/ { split($2, a, "[:@]"); print a[2] }' "$dir/nodes.conf" 2>/dev/null || true)
  [[ -z $made_on || $made_on == "$port" ]] || die "the Redis Cluster in $STATE/redis-cluster was made on ports" \
    "from $((made_on - n + 1)), not $REDIS_PORT: set REDIS_PORT to them, or scripts/stack down and remove that folder"
  port_busy "$port" && die "port $port is in use by another process (set REDIS_PORT)"
  port_busy $((port + REDIS_CLUSTER_BUS_OFFSET)) \
    && die "cluster bus port $((port + REDIS_CLUSTER_BUS_OFFSET)) is in use (set REDIS_CLUSTER_BUS_OFFSET)"
  # AOF everysec as production runs it; no full coverage required, so that while one shard fails over the others
  # keep selling their items (with it, every node refuses every command until the failover is done). A primary has
  # one replica, so the diskless sync's default 5 s wait for more replicas to share a transfer only delays it
  redis-server --bind 127.0.0.1 --port "$port" --cluster-enabled yes --cluster-config-file "$dir/nodes.conf" \
    --cluster-port $((port + REDIS_CLUSTER_BUS_OFFSET)) --cluster-node-timeout "$REDIS_CLUSTER_NODE_TIMEOUT" \
    --cluster-require-full-coverage no --save '' --appendonly yes --appendfsync everysec --daemonize yes \
    --repl-diskless-sync-delay 0 \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" --maxclients 10000
  wait_for "redis-$n" 20 "$dir/redis.log" redis_node_healthy "$n"
}

redis_node_healthy() { [[ $(redis-cli -p "$(redis_node_port "$1")" ping 2>/dev/null) == PONG ]]; }

# the node's role: "primary of slots 0-5460" or "replica of 127.0.0.1:7100 (connected)"
redis_node_role() {
  local port; port=$(redis_node_port "$1")
  local -a role; mapfile -t role < <(redis-cli -p "$port" role 2>/dev/null)
  case ${role[0]:-} in
    # CLUSTER NODES: the line flagged myself lists the node's slots from its ninth field on
    master) redis-cli -p "$port" cluster nodes 2>/dev/null \
              | awk '$3 ~ /myself/ { s = ""; for (i = 9; i <= NF; i++) s = s (i > 9 ? "," : "") $i; print "primary of slots " (s == "" ? "none" : s) }' ;;
    slave) echo "replica of ${role[1]}:${role[2]} (${role[3]})" ;;
    *) echo "role unknown" ;;
  esac
}

# with full coverage off a node says "ok" with slots uncovered: every slot served, every peer known and reachable
redis_cluster_ok() {
  local port info nodes; port=$(redis_node_port "$1")
  info=$(redis-cli -p "$port" cluster info 2>/dev/null) && nodes=$(redis-cli -p "$port" cluster nodes 2>/dev/null) || return 1
  [[ $info == *cluster_state:ok* && $info == *cluster_slots_ok:16384* && $info == *"cluster_known_nodes:$REDIS_NODES"* ]] \
    && ! grep -qE 'fail|handshake|noaddr|disconnected' <<<"$nodes"
}

# a node is whole once it writes its own AOF of what it holds, and, as a replica, holds its primary's data. Until
# then it refuses SHUTDOWN ("Writing initial AOF, can't exit"), and a SIGTERM is dropped the same way; a replica
# before its first sync cannot be promoted at all. A replica's link comes up in the same step that starts the
# rewrite of its AOF, so no state between the two is seen; a replica promoted during the rewrite still has it running
redis_node_whole() {
  local port info; port=$(redis_node_port "$1")
  info=$(redis-cli -p "$port" info replication 2>/dev/null && redis-cli -p "$port" info persistence 2>/dev/null) || return 1
  [[ $info == *aof_rewrite_in_progress:0* && $info == *aof_rewrite_scheduled:0* ]] || return 1
  [[ $info == *role:master* || $info == *master_link_status:up* ]]
}

redis_cluster_up() {
  local n first; first=$(redis_node_port 1)
  for ((n = 1; n <= REDIS_NODES; n++)); do redis_node_up "$n"; done
  # a node started from its nodes.conf knows the cluster already; a fresh one is alone with no slots
  if [[ $(redis-cli -p "$first" cluster info) == *cluster_slots_assigned:0* ]]; then
    local nodes; IFS=, read -r -a nodes <<<"$(redis_cluster_nodes)"
    log "creating the Redis Cluster (3 primaries, 3 replicas)"
    redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$STATE/redis-cluster/create.log" 2>&1 \
      || { tail -n 20 "$STATE/redis-cluster/create.log" >&2; die "redis-cli --cluster create failed"; }
  fi
  for ((n = 1; n <= REDIS_NODES; n++)); do
    wait_for "redis-$n (cluster state ok)" 30 "$(redis_node_dir "$n")/redis.log" redis_cluster_ok "$n"
  done
  for ((n = 1; n <= REDIS_NODES; n++)); do
    # a full sync and an AOF rewrite of what a long bench left behind can take a while on a busy box
    wait_for "redis-$n (synced, its AOF written)" "${REDIS_CLUSTER_SYNC_TIMEOUT:-180}" "$(redis_node_dir "$n")/redis.log" \
      redis_node_whole "$n"
  done
  log "redis cluster up on 127.0.0.1:$first..$(redis_node_port "$REDIS_NODES") (AOF everysec, node timeout ${REDIS_CLUSTER_NODE_TIMEOUT} ms)"
}

# ---------------------------------------------------------------- Kafka, three nodes
kafka_cluster_voters() {
  local n voters=()
  for ((n = 1; n <= KAFKA_NODES; n++)); do voters+=("$n@127.0.0.1:$(kafka_node_controller_port "$n")"); done
  (IFS=,; echo "${voters[*]}")
}

# kafka_node_up <n> [cluster id]: configures and starts one node; the id formats a node that never ran
kafka_node_up() {
  local n=$1 id=${2:-} dir port cport; dir=$(kafka_node_dir "$1") port=$(kafka_node_port "$1") cport=$(kafka_node_controller_port "$1")
  mkdir -p "$dir"
  if pid_alive "$dir/kafka.pid"; then log "kafka-$n already running on $port"; return; fi
  port_busy "$port" && die "port $port is in use by another process (set KAFKA_PORT)"
  port_busy "$cport" && die "port $cport is in use by another process (set KAFKA_PORT)"
  local cp; cp=$(kafka_classpath)
  if [[ ! -f $dir/data/meta.properties ]]; then
    id=${id:-$(cat "$STATE/kafka-cluster/cluster.id" 2>/dev/null)}
    [[ -n $id ]] || die "kafka-$n has no storage and the cluster no id: scripts/stack down, remove $STATE/kafka-cluster, up again"
  fi
  # replication 3 and min ISR 2 for the internal topics (offsets, transactions) as for the stock topic
  kafka_config "$dir" "$n" "$port" "$cport" "$(kafka_cluster_voters)" "$KAFKA_NODES" 2
  # where this start's lines begin in the node's appended log (kafka_node_started reads from there)
  stat -c %s "$dir/kafka.log" >"$dir/log-offset" 2>/dev/null || echo 0 >"$dir/log-offset"
  kafka_start "$dir" "$cp" "$dir/kafka.pid" "$id"
}

# a restarted node is back once its log says so since this start: the broker logs "Kafka Server started" only after
# it has caught up with the metadata and the controller has unfenced it. A client round trip per try would start a
# tool's JVM (10-16 s each on a loaded box), and a fault's "back" would measure the tool, not the broker
kafka_node_started() {
  local dir; dir=$(kafka_node_dir "$1")
  tail -c +$(($(cat "$dir/log-offset") + 1)) "$dir/kafka.log" 2>/dev/null | grep -q 'Kafka Server started'
}

kafka_cluster_up() {
  local cp n id; cp=$(kafka_classpath)
  mkdir -p "$STATE/kafka-cluster"
  kafka_log4j "$KAFKA_TOOLS_LOG4J" "$STATE/kafka-cluster/tools.log"
  id=$(cat "$STATE/kafka-cluster/cluster.id" 2>/dev/null || true)
  if [[ -z $id ]]; then id=$(kafka_random_id "$cp"); echo "$id" >"$STATE/kafka-cluster/cluster.id"; fi
  for ((n = 1; n <= KAFKA_NODES; n++)); do kafka_node_up "$n" "$id"; done
  # the controllers elect a leader once two of three are up; the brokers register with it
  wait_for kafka 90 "$(kafka_node_dir 1)/stdout.log" kafka_topics "$cp" --list
  kafka_topics_create "$cp" "$KAFKA_NODES" --config min.insync.replicas=2 --config unclean.leader.election.enable=false
  log "kafka up on $KAFKA_BOOTSTRAP (3 brokers; topics $STOCK_TOPIC, $STOCK_TOPIC-dlt: $KAFKA_PARTITIONS partitions, replication 3, min ISR 2)"
}

# one line for the status: per partition of the stock topic its leader and in-sync replicas
kafka_cluster_topic_status() {
  kafka_topics "$(kafka_classpath)" --describe --topic "$STOCK_TOPIC" 2>/dev/null \
    | awk '/Partition: /{ for (i = 1; i <= NF; i++) { if ($i == "Partition:") p = $(i + 1); if ($i == "Leader:") l = $(i + 1); if ($i == "Isr:") s = $(i + 1) }
                          printf "%sp%s leader %s isr %s", (n++ ? ", " : ""), p, l, s } END { if (!n) exit 1; print "" }'
}
