# shellcheck shell=bash
# MariaDB for scripts/stack: first-time data directory, start, databases and user, health. With a replica
# (`up --db-replica`, scripts/lib/mariadb-replica.sh) the same start serves both nodes, each in its role.

mariadb_up() { mariadb_node_up mariadb; }

# mariadb_node_up <node>: mariadb (MYSQL_PORT, $STATE/mariadb) or, with a replica, mariadb-2 (MYSQL_REPLICA_PORT)
mariadb_node_up() {
  local node=$1 dir port socket; dir=$(mariadb_dir "$1") port=$(mariadb_port "$1") socket=$(mariadb_socket "$1")
  local pid=$dir/mariadb.pid data=$dir/data
  mkdir -p "$dir"
  if pid_alive "$pid"; then log "$node already running on $port"; return; fi
  [[ -f $dir/FENCED ]] && die "$node is fenced (it was the primary before a db-failover) and must never take writes again: with the stack up --db-replica, scripts/stack db-rebuild $node makes it a replica of the primary"
  port_busy "$port" && die "port $port is in use by another process (set MYSQL_PORT / MYSQL_REPLICA_PORT)"
  local role=primary
  if db_replica_on && [[ $node != "$(db_primary)" ]]; then role=replica; fi
  local fresh=false
  if [[ ! -d $data/mysql ]]; then
    log "initialising mariadb data directory $data"
    mariadb-install-db --no-defaults --datadir="$data" --user=root --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1 || { tail -n 20 "$dir/install.log" >&2; die "mariadb-install-db failed"; }
    fresh=true
  fi
  local replication=()
  if db_replica_on; then read -r -a replication <<<"$(mariadb_replication_options "$node" "$role" | tr '\n' ' ')"; fi
  nohup mariadbd --no-defaults --datadir="$data" --socket="$socket" --pid-file="$pid" \
    --port="$port" --bind-address=127.0.0.1 --user=root --log-error="$dir/mariadb.log" \
    --max-connections=1000 --innodb-buffer-pool-size=512M --innodb-log-file-size=256M \
    --innodb-flush-log-at-trx-commit="$INNODB_FLUSH" --skip-name-resolve --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_general_ci --default-time-zone=+00:00 "${replication[@]}" >/dev/null 2>&1 &
  wait_for "$node" 60 "$dir/mariadb.log" mariadb-admin --no-defaults -S "$socket" -uroot ping
  if [[ $role == replica ]]; then
    $fresh && mariadb_seed_replica "$node"
    mariadb_replica_wait "$node"
    log "$node up on 127.0.0.1:$port (replica of $(db_primary), read-only)"
    return
  fi
  # the user and databases are (re)declared on every start, which also repairs a half-done first start; with a
  # replica, outside the binary log: a replica gets them from the copy that seeds it, and a primary whose replica
  # is not connected yet would hold each statement for the semi-synchronous timeout
  { if db_replica_on; then echo "SET SESSION sql_log_bin = 0;"; fi
    cat <<SQL
CREATE DATABASE IF NOT EXISTS orders CHARACTER SET utf8mb4;
CREATE DATABASE IF NOT EXISTS stock CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON orders.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
GRANT ALL PRIVILEGES ON stock.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
-- integration tests create throw-away databases named test_*
GRANT ALL PRIVILEGES ON \`test\_%\`.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
SQL
    if db_replica_on; then mariadb_replication_users_sql; fi
  } | mariadb --no-defaults -S "$socket" -uroot
  $fresh && log "created databases orders, stock and user $DB_USER"
  log "$node up on 127.0.0.1:$port$(db_replica_on && echo " (primary)")"
}

mariadb_healthy() {
  if db_replica_on; then mariadb_node_healthy mariadb
  else mariadb-admin --no-defaults -h127.0.0.1 -P"$MYSQL_PORT" -u"$DB_USER" -p"$DB_PASSWORD" ping; fi
}

# the primary, and its replica if the stack has one
mariadb_all_up() {
  mariadb_node_up "$(db_primary)"
  db_replica_on || return 0
  local replica; replica=$(db_replica)
  if [[ -n $replica ]]; then mariadb_node_up "$replica"
  else log "no database replica: $(db_other "$(db_primary)") is fenced (scripts/stack db-rebuild $(db_other "$(db_primary)"))"; fi
}
