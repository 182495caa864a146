# shellcheck shell=bash
# MariaDB for scripts/stack: first-time data directory, start, databases and user, health.

mariadb_up() {
  local dir=$STATE/mariadb pid=$STATE/mariadb/mariadb.pid data=$STATE/mariadb/data
  mkdir -p "$dir"
  if pid_alive "$pid"; then log "mariadb already running on $MYSQL_PORT"; return; fi
  port_busy "$MYSQL_PORT" && die "port $MYSQL_PORT is in use by another process (set MYSQL_PORT)"
  local fresh=false
  if [[ ! -d $data/mysql ]]; then
    log "initialising mariadb data directory $data"
    mariadb-install-db --no-defaults --datadir="$data" --user=root --auth-root-authentication-method=normal \
      --skip-test-db >"$dir/install.log" 2>&1 || { tail -n 20 "$dir/install.log" >&2; die "mariadb-install-db failed"; }
    fresh=true
  fi
  nohup mariadbd --no-defaults --datadir="$data" --socket="$MYSQL_SOCKET" --pid-file="$pid" \
    --port="$MYSQL_PORT" --bind-address=127.0.0.1 --user=root --log-error="$dir/mariadb.log" \
    --max-connections=1000 --innodb-buffer-pool-size=512M --innodb-log-file-size=256M \
    --innodb-flush-log-at-trx-commit="$INNODB_FLUSH" --skip-name-resolve --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_general_ci --default-time-zone=+00:00 >/dev/null 2>&1 &
  wait_for mariadb 60 "$dir/mariadb.log" mariadb-admin --no-defaults -S "$MYSQL_SOCKET" -uroot ping
  # the user and databases are (re)declared on every start, which also repairs a half-done first start
  mariadb --no-defaults -S "$MYSQL_SOCKET" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS orders CHARACTER SET utf8mb4;
CREATE DATABASE IF NOT EXISTS stock CHARACTER SET utf8mb4;
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$DB_PASSWORD';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON orders.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
GRANT ALL PRIVILEGES ON stock.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
-- integration tests create throw-away databases named test_*
GRANT ALL PRIVILEGES ON \`test\_%\`.* TO '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost';
SQL
  $fresh && log "created databases orders, stock and user $DB_USER"
  log "mariadb up on 127.0.0.1:$MYSQL_PORT"
}

mariadb_healthy() { mariadb-admin --no-defaults -h127.0.0.1 -P"$MYSQL_PORT" -u"$DB_USER" -p"$DB_PASSWORD" ping; }
