# shellcheck shell=bash
# Helpers every part of scripts/stack uses: logging, the JDK, pids and ports, waiting, installing
# Debian packages, Maven. Sourced by scripts/stack, scripts/component-bench and scripts/two-instances
# (which define ROOT first).

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

pick_java() {
  if [[ -n ${FLASHSTOCK_JAVA:-} ]]; then echo "$FLASHSTOCK_JAVA"; return; fi
  # JDK 21+ is needed for virtual threads; use the newest installed JDK, else whatever java is on PATH
  local j
  for j in /usr/lib/jvm/temurin-25-jdk-amd64/bin/java /usr/lib/jvm/java-25-openjdk-amd64/bin/java \
           /usr/lib/jvm/java-21-openjdk-amd64/bin/java; do
    [[ -x $j ]] && { echo "$j"; return; }
  done
  command -v java || die "no java found; install a JDK 17+"
}

pid_alive() { [[ -f $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for <what> <seconds> <logfile> <command...>: polls the command until it succeeds or time runs out
wait_for() {
  local what=$1 secs=$2 logfile=$3; shift 3
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "$what did not become healthy within ${secs}s; last lines of $logfile:"
      tail -n 40 "$logfile" >&2 2>/dev/null || true
      exit 1
    fi
    sleep 0.2
  done
}

need_root_for_apt() {
  command -v apt-get >/dev/null || die "apt-get not found: install $* by hand (Debian/Ubuntu packages expected)"
  [[ $(id -u) -eq 0 ]] || die "installing $* needs root (or sudo): run as root once, or install them by hand"
}

apt_updated=false
apt_install() {
  need_root_for_apt "$@"
  if ! $apt_updated; then
    log "apt-get update"
    apt-get update -qq >/dev/null || die "apt-get update failed"
    apt_updated=true
  fi
  log "installing $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
}

install_missing() {
  local pkgs=()
  command -v redis-server >/dev/null || pkgs+=(redis-server)
  command -v mariadbd >/dev/null || pkgs+=(mariadb-server)
  command -v mariadb >/dev/null || pkgs+=(mariadb-client)
  command -v curl >/dev/null || pkgs+=(curl)
  # the dashboard's browser test (DashboardIT) and scripts/dashboard-shot drive Debian's own build
  command -v chromium >/dev/null || pkgs+=(chromium)
  command -v chromedriver >/dev/null || pkgs+=(chromium-driver)
  ((${#pkgs[@]} == 0)) || apt_install "${pkgs[@]}"
}

mvnw() { "$ROOT/mvnw" -q -B "$@"; }

stop_pid() {
  local name=$1 pid=$2
  if pid_alive "$pid"; then
    local p; p=$(cat "$pid")
    kill "$p" 2>/dev/null || true
    local deadline=$((SECONDS + ${STOP_TIMEOUT:-30}))
    while kill -0 "$p" 2>/dev/null; do
      if ((SECONDS >= deadline)); then log "$name did not stop in time; killing"; kill -9 "$p" 2>/dev/null || true; fi
      sleep 0.2
    done
    log "$name stopped"
  fi
  rm -f "$pid"
}
