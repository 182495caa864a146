# shellcheck shell=bash
# Redis for scripts/stack: start (with or without AOF) and health.

redis_up() {
  local dir=$STATE/redis pid=$STATE/redis/redis.pid
  # by default no persistence on purpose: a restart loses the counters, and order-api rebuilds them from the
  # orders database (docs/reliability.md). REDIS_APPENDONLY=yes runs AOF everysec, as production should: a
  # restart then reloads the AOF from $dir, which may miss the last second of decrements (the fault suite's
  # redis-aof-kill)
  local persistence=(--appendonly no) how="no persistence"
  case ${REDIS_APPENDONLY:-no} in
    no) ;;
    yes) persistence=(--appendonly yes --appendfsync everysec) how="AOF everysec in $dir" ;;
    *) die "REDIS_APPENDONLY must be yes or no, not '$REDIS_APPENDONLY'" ;;
  esac
  mkdir -p "$dir"
  if pid_alive "$pid"; then log "redis already running on $REDIS_PORT"; return; fi
  port_busy "$REDIS_PORT" && die "port $REDIS_PORT is in use by another process (set REDIS_PORT)"
  # noeviction (Redis's default, said here on purpose): a full Redis refuses writes, so orders are refused 503,
  # where an eviction policy would drop counters, take records or life keys (docs/reliability.md). REDIS_MAXMEMORY
  # caps it (e.g. 512mb); unset, the machine's memory is the bound
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' "${persistence[@]}" --daemonize yes \
    --pidfile "$pid" --logfile "$dir/redis.log" --dir "$dir" --maxclients 10000 \
    --maxmemory-policy noeviction --maxmemory "${REDIS_MAXMEMORY:-0}"
  # PONG, not merely an answer: while Redis loads an AOF it answers LOADING
  wait_for redis 20 "$dir/redis.log" redis_healthy
  log "redis up on 127.0.0.1:$REDIS_PORT ($how)"
}

redis_healthy() { [[ $(redis-cli -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; }
