"""What a run cost the stack besides CPU and what it ran: the database's statements, the processes' memory, the
services' build info."""
import os
import subprocess
from pathlib import Path

import requests

from flashbench.stack import SERVICES, stack_pids

STATEMENTS = ("Questions", "Com_select", "Com_insert", "Com_update", "Com_delete", "Com_commit", "Com_set_option")


def db_statements() -> dict[str, int]:
    """MariaDB's global statement counters (SHOW GLOBAL STATUS); empty when it cannot be asked."""
    user, password = os.environ.get("DB_USER", "flashstock"), os.environ.get("DB_PASSWORD", "flashstock")
    names = ",".join(f"'{n}'" for n in STATEMENTS)
    r = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{os.environ.get('MYSQL_PORT', '3306')}",
                        f"-u{user}", f"-p{password}", "-N", "-B", "-e",
                        f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})"], capture_output=True, text=True)
    return {k: int(v) for k, v in (line.split("\t") for line in r.stdout.splitlines())} if r.returncode == 0 else {}


def statements_per_order(before: dict[str, int], after: dict[str, int], orders: int) -> dict[str, float]:
    """Each counter's growth between two readings per order (per one when none was accepted), of the counters
    read both times."""
    return {k: round((after[k] - before[k]) / max(orders, 1), 2) for k in after if k in before}


def process_memory() -> dict:
    """Resident and peak resident memory (MiB) of every process the stack started."""
    out = {}
    for name, pid in stack_pids().items():
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        out[name] = {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM") if k in fields}
    return out


def service_info() -> dict:
    info = {}
    for name, port in SERVICES.items():  # the first instances: a topology runs one build
        try:
            info[name] = requests.get(f"http://127.0.0.1:{port}/actuator/info", timeout=5).json()
        except (requests.RequestException, ValueError):
            info[name] = {}
    return info
