# shellcheck shell=bash
# The Python venv (.venv) for scripts/stack up.

# Locust and the scripts' tools (plots, schema check, pytest) in one venv
python_venv() {
  local venv=$ROOT/.venv reqs=("$ROOT/locust/requirements.txt" "$ROOT/scripts/requirements-tools.txt")
  if [[ ! -x $venv/bin/locust || ${reqs[0]} -nt $venv/.installed || ${reqs[1]} -nt $venv/.installed ]]; then
    log "installing Locust and the scripts' tools into $venv"
    command -v python3 >/dev/null || apt_install python3 python3-venv
    python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$venv"; }
    "$venv/bin/pip" install -q -r "${reqs[0]}" -r "${reqs[1]}" || die "pip install into $venv failed"
    touch "$venv/.installed"
  fi
}
