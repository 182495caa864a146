# shellcheck shell=bash
# The replicated database of scripts/stack (`up --db-replica`, with either topology): two MariaDB nodes, mariadb on
# MYSQL_PORT and mariadb-2 on MYSQL_REPLICA_PORT, one primary and one read-only replica of the whole server (both
# databases, orders and stock, live on it). GTID replication; the primary waits for the replica's acknowledgement
# before a commit returns (semi-synchronous, AFTER_SYNC). Which node is the primary is recorded in
# $STATE/db-primary; `db-failover` fences the primary and promotes the replica; `db-rebuild` makes a fenced node a
# replica again. docs/architecture.md "The replicated database" says why each choice.

MYSQL_REPLICA_PORT=${MYSQL_REPLICA_PORT:-$((MYSQL_PORT + 1))}
DB_REPL_USER=${DB_REPL_USER:-flashstock_repl}
DB_REPL_PASSWORD=${DB_REPL_PASSWORD:-flashstock_repl}
# the account order-api reads the replica with (SELECT only): the application's own account is locked on a replica
DB_READER_USER=${DB_READER_USER:-flashstock_reader}
DB_READER_PASSWORD=${DB_READER_PASSWORD:-flashstock_reader}
# how long a commit waits for the replica's acknowledgement before the primary goes on without it (asynchronous,
# loudly: `scripts/stack status`). Below the services' socket timeout (2 s): a commit the client gives up on while
# the server still holds it would be an order of unknown fate
DB_SEMI_SYNC_TIMEOUT_MS=${DB_SEMI_SYNC_TIMEOUT_MS:-1000}
# how long db-failover waits for the replica to apply what it received before it refuses to promote it
DB_FAILOVER_APPLY_TIMEOUT=${DB_FAILOVER_APPLY_TIMEOUT:-120}
# Connector/J's failover mode (a URL of several hosts): the first that answers is the primary. A connection that
# failed over stays writable (failOverReadOnly=false) and never goes back to the first host by itself (it may be a
# fenced node): a new connection starts from the first host again. With every host down a connection attempt gives
# up after two rounds (retriesAllDown; the driver's 120 rounds of 250 ms held each pool thread 30 s, past the pool's
# 1 s wait and past a service's shutdown)
DB_FAILOVER_OPTIONS="failOverReadOnly=false&secondsBeforeRetrySource=0&queriesBeforeRetrySource=0&retriesAllDown=2"

db_replica_on() { [[ -f $STATE/db-replica ]]; }
# without a replica the stack runs mariadb alone (fenced, it refuses: up --db-replica runs the promoted node)
db_primary() { if db_replica_on && [[ -f $STATE/db-primary ]]; then cat "$STATE/db-primary"; else echo mariadb; fi; }
db_other() { if [[ $1 == mariadb ]]; then echo mariadb-2; else echo mariadb; fi; }
mariadb_dir() { if [[ $1 == mariadb ]]; then echo "$STATE/mariadb"; else echo "$STATE/$1"; fi; }
mariadb_port() { if [[ $1 == mariadb ]]; then echo "$MYSQL_PORT"; else echo "$MYSQL_REPLICA_PORT"; fi; }
mariadb_socket() { echo "$(mariadb_dir "$1")/mysqld.sock"; }
mariadb_fenced() { [[ -f $(mariadb_dir "$1")/FENCED ]]; }
# mariadb_sql <node> <sql>: as root on the node's socket, tab-separated, no column names
mariadb_sql() { mariadb --no-defaults -S "$(mariadb_socket "$1")" -uroot -N -B -e "$2"; }
mariadb_node_healthy() { mariadb-admin --no-defaults -S "$(mariadb_socket "$1")" -uroot ping; }

# the replica, if there is one that is not fenced
db_replica() { local r; r=$(db_other "$(db_primary)"); mariadb_fenced "$r" || echo "$r"; }

# db_url <database>: the services' JDBC URL, the primary first, then the other node, fenced or not: once rebuilt
# it is the replica a later failover promotes, and a service started meanwhile must reach it then
db_url() {
  if ! db_replica_on; then echo "jdbc:mysql://127.0.0.1:$MYSQL_PORT/$1"; return; fi
  local primary; primary=$(db_primary)
  echo "jdbc:mysql://127.0.0.1:$(mariadb_port "$primary"),127.0.0.1:$(mariadb_port "$(db_other "$primary")")/$1?$DB_FAILOVER_OPTIONS"
}

# the node's mariadbd options for its role: binary log and GTIDs on both, so that either can be the primary
mariadb_replication_options() {
  local node=$1 role=$2 id=1
  [[ $node == mariadb-2 ]] && id=2
  echo "--server-id=$id --log-bin=mariadb-bin --log-slave-updates --binlog-format=ROW --sync-binlog=1"
  echo "--gtid-strict-mode=ON --relay-log=relay-bin --binlog-expire-logs-seconds=86400"
  echo "--rpl-semi-sync-master-wait-point=AFTER_SYNC --rpl-semi-sync-master-timeout=$DB_SEMI_SYNC_TIMEOUT_MS"
  if [[ $role == primary ]]; then echo "--rpl-semi-sync-master-enabled=ON --read-only=OFF"
  else echo "--rpl-semi-sync-slave-enabled=ON --read-only=ON"; fi
}

# the replication and reader accounts, declared on the primary with the others (outside the binary log)
mariadb_replication_users_sql() {
  cat <<SQL
CREATE USER IF NOT EXISTS '$DB_REPL_USER'@'127.0.0.1' IDENTIFIED BY '$DB_REPL_PASSWORD';
GRANT REPLICATION SLAVE ON *.* TO '$DB_REPL_USER'@'127.0.0.1';
CREATE USER IF NOT EXISTS '$DB_READER_USER'@'127.0.0.1' IDENTIFIED BY '$DB_READER_PASSWORD';
GRANT SELECT ON orders.* TO '$DB_READER_USER'@'127.0.0.1';
GRANT SELECT ON stock.* TO '$DB_READER_USER'@'127.0.0.1';
GRANT SELECT ON \`test\_%\`.* TO '$DB_READER_USER'@'127.0.0.1';
SQL
}

# the application's account, locked or unlocked on this node only: a replica must not let the services in, or a
# connection of theirs that failed over before the promotion would read stale rows and write nothing
mariadb_app_account() {
  mariadb_sql "$1" "SET SESSION sql_log_bin = 0; ALTER USER '$DB_USER'@'127.0.0.1', '$DB_USER'@'localhost' ACCOUNT $2"
}

# a fresh replica: a consistent copy of the primary (all databases and accounts, with its GTID position), then
# replication from that position
mariadb_seed_replica() {
  local node=$1 primary dir seed pos; primary=$(db_primary) dir=$(mariadb_dir "$1")
  seed=$dir/seed.sql
  pid_alive "$(mariadb_dir "$primary")/mariadb.pid" || die "$node: the primary $primary is not running, nothing to copy"
  log "$node: copying $primary"
  # the help tables are the largest and every server has its own
  mariadb-dump --no-defaults -S "$(mariadb_socket "$primary")" -uroot --all-databases --single-transaction \
    --gtid --master-data=2 --routines --events --ignore-table=mysql.help_topic --ignore-table=mysql.help_keyword \
    --ignore-table=mysql.help_relation --ignore-table=mysql.help_category >"$seed" || die "$node: mariadb-dump of $primary failed"
  pos=$(sed -n "s/^-- SET GLOBAL gtid_slave_pos='\(.*\)';$/\1/p" "$seed")
  { echo "SET SESSION sql_log_bin = 0;"; cat "$seed"; } | mariadb --no-defaults -S "$(mariadb_socket "$node")" -uroot \
    || die "$node: loading the copy of $primary failed"
  rm -f "$seed"
  mariadb_sql "$node" "FLUSH PRIVILEGES; RESET MASTER; SET GLOBAL gtid_slave_pos = '$pos';
    CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = $(mariadb_port "$primary"),
      MASTER_USER = '$DB_REPL_USER', MASTER_PASSWORD = '$DB_REPL_PASSWORD', MASTER_USE_GTID = slave_pos,
      MASTER_CONNECT_RETRY = 1;
    START SLAVE;"
  mariadb_app_account "$node" LOCK
}

# SHOW SLAVE STATUS, one "Field: value" a line
slave_status() { mariadb --no-defaults -S "$(mariadb_socket "$1")" -uroot -e "SHOW SLAVE STATUS\G"; }
# one field of it
slave_field() { slave_status "$1" 2>/dev/null | awk -v f="$2" -F': ' '$1 ~ "^ *" f "$" { print $2; exit }'; }

mariadb_replica_running() { [[ $(slave_field "$1" Slave_IO_Running) == Yes && $(slave_field "$1" Slave_SQL_Running) == Yes ]]; }

mariadb_replica_wait() {
  wait_for "$1 (replicating)" 30 "$(mariadb_dir "$1")/mariadb.log" mariadb_replica_running "$1"
}

# a global status variable of the node
status_var() { mariadb_sql "$1" "SHOW GLOBAL STATUS LIKE '$2'" 2>/dev/null | cut -f2; }

# transactions in the primary's binary log that the replica has not applied: per GTID domain, the primary's last
# sequence number less the replica's
gtid_gap() {
  awk -v p="$1" -v r="$2" 'BEGIN {
    n = split(r, rs, ","); for (i = 1; i <= n; i++) { split(rs[i], g, "-"); have[g[1]] = g[3] }
    n = split(p, ps, ","); for (i = 1; i <= n; i++) { split(ps[i], g, "-"); gap += g[3] - (g[1] in have ? have[g[1]] : 0) }
    print gap + 0 }'
}

# what the status adds to a node's line: its role, and the replication's health and lag
mariadb_node_detail() {
  local node=$1 primary; primary=$(db_primary)
  if [[ $node == "$primary" ]]; then
    local semi clients unacked
    semi=$(status_var "$node" Rpl_semi_sync_master_status) clients=$(status_var "$node" Rpl_semi_sync_master_clients)
    unacked=$(status_var "$node" Rpl_semi_sync_master_no_tx)
    if [[ -z $(db_replica) ]]; then echo "; primary, NO REPLICA: one copy of every commit (scripts/stack db-rebuild $(db_other "$node"))"
    elif [[ $semi == ON ]]; then echo "; primary, semi-sync ON ($clients replica acknowledging; $unacked commits went unacknowledged since start)"
    else echo "; primary, SEMI-SYNC OFF: commits return without the replica's acknowledgement ($unacked so far); a failover now may lose them"; fi
  else
    local io sql behind gap
    io=$(slave_field "$node" Slave_IO_Running) sql=$(slave_field "$node" Slave_SQL_Running)
    behind=$(slave_field "$node" Seconds_Behind_Master)
    gap=$(gtid_gap "$(mariadb_sql "$primary" 'SELECT @@gtid_binlog_pos' 2>/dev/null)" "$(mariadb_sql "$node" 'SELECT @@gtid_slave_pos')")
    echo "; replica of $primary, io ${io:-?} sql ${sql:-?}, ${behind:-?} s and $gap transactions behind"
  fi
}

# ---------------------------------------------------------------- failover
# fences the primary (marked, so nothing starts it again, then killed: whatever it holds that the replica has not is
# discarded with it, and it takes writes again only once rebuilt as a replica), then promotes the replica once it
# has applied all it received
db_failover() {
  db_replica_on || die "the stack runs without a replica (scripts/stack up --db-replica)"
  local old new started=$EPOCHREALTIME; old=$(db_primary) new=$(db_other "$old")
  mariadb_fenced "$new" && die "$new is fenced: there is no replica to promote"
  pid_alive "$(mariadb_dir "$new")/mariadb.pid" || die "the replica $new is not running: nothing to promote"
  [[ -n $(slave_field "$new" Slave_IO_Running) ]] || die "$new is not a replica"
  touch "$(mariadb_dir "$old")/FENCED"
  local pid; pid=$(mariadb_dir "$old")/mariadb.pid
  if pid_alive "$pid"; then
    local victim; victim=$(cat "$pid")
    # a primary that crashed may be gone (or a zombie) by now: nothing left to kill is not a failure
    kill -9 "$victim" 2>/dev/null || true
    while kill -0 "$victim" 2>/dev/null; do sleep 0.02; done
  fi
  rm -f "$pid"
  log "$old fenced ($(elapsed_ms "$started") ms)"
  # a paused replica is let go on: all it received was acknowledged to a client, none of it may be lost. Its
  # receiving thread stays as it is: MariaDB discards the relay log of a replica whose threads both stopped
  mariadb_sql "$new" "START SLAVE SQL_THREAD" 2>/dev/null || true
  local received; received=$(slave_field "$new" Gtid_IO_Pos)
  local applied; applied=$(mariadb_sql "$new" "SELECT MASTER_GTID_WAIT('$received', $DB_FAILOVER_APPLY_TIMEOUT)")
  [[ $applied == 0 ]] || die "$new did not apply all it received ($received) within ${DB_FAILOVER_APPLY_TIMEOUT}s ($(slave_field "$new" Last_SQL_Error)): not promoted; $old stays fenced"
  log "$new applied all it received, up to $(mariadb_sql "$new" 'SELECT @@gtid_slave_pos') ($(elapsed_ms "$started") ms)"
  # no replica is left to acknowledge: semi-sync would hold every commit for its timeout
  mariadb_sql "$new" "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL rpl_semi_sync_slave_enabled = OFF;
    SET GLOBAL rpl_semi_sync_master_enabled = OFF; SET GLOBAL read_only = OFF;"
  mariadb_app_account "$new" UNLOCK
  echo "$new" >"$STATE/db-primary"
  log "$new promoted: the primary on 127.0.0.1:$(mariadb_port "$new"), writable, no replica (db-failover took $(elapsed_ms "$started") ms)"
}

elapsed_ms() { echo $(((${EPOCHREALTIME/./} - ${1/./}) / 1000)); }

# a fenced node made a replica of the primary again, from a fresh copy. The running services still name it first
# in their URL: they must have been restarted since the failover (their URL then names the new primary first), or
# their new connections would reach a replica that refuses them
db_rebuild() {
  local node=$1 primary pid env; primary=$(db_primary)
  db_replica_on || die "the stack runs without a replica (scripts/stack up --db-replica)"
  [[ $node == "$primary" ]] && die "$node is the primary"
  mariadb_fenced "$node" || die "$node is not fenced: nothing to rebuild"
  for pid in "$STATE"/services/*.pid; do
    pid_alive "$pid" || continue
    env=$(tr '\0' '\n' <"/proc/$(cat "$pid")/environ" 2>/dev/null | grep '^ORDERS_DB_URL=\|^STOCK_DB_URL=' | head -n 1)
    [[ $env == *"//127.0.0.1:$(mariadb_port "$node")"* ]] \
      && die "$(basename "$pid" .pid) still names $node as its first database: restart it first (scripts/stack restart $(basename "$pid" .pid))"
  done
  rm -rf "$(mariadb_dir "$node")/data" "$(mariadb_dir "$node")/FENCED"
  mariadb_node_up "$node"
  mariadb_sql "$primary" "SET GLOBAL rpl_semi_sync_master_enabled = ON"
  log "$node rebuilt: a replica of $primary; semi-sync on again"
}
