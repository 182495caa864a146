"""docker-compose.yml never falls back to a secret that is published (in this repository, in the README): without
the admin token compose refuses to start, and without a signing key the token gate is off, never on under the
development key anyone can read."""
import re
from pathlib import Path

from ruamel.yaml import YAML  # comes with check-jsonschema (scripts/requirements-tools.txt)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


def environment(service: str) -> dict:
    return YAML(typ="safe").load(COMPOSE.read_text())["services"][service]["environment"]


def development_defaults() -> dict:
    """The local stack's development secrets, as scripts/stack defaults them: NAME=${NAME:-value}."""
    stack = (ROOT / "scripts/stack").read_text()
    return {name: re.search(rf"^{name}=\$\{{{name}:-(.+)}}$", stack, re.M).group(1)
            for name in ("STOCK_ADMIN_TOKEN", "FLASHSTOCK_TOKEN_KEY")}


def test_no_development_secret_is_in_the_compose_file():
    text = COMPOSE.read_text()
    for name, value in development_defaults().items():
        assert value not in text, name


def test_without_an_admin_token_compose_refuses_to_start():
    for service in ("order-api", "outbox-relay", "stock-consumer"):
        assert re.fullmatch(r"\$\{STOCK_ADMIN_TOKEN:\?.+}", environment(service)["STOCK_ADMIN_TOKEN"]), service


def test_without_a_signing_key_the_token_gate_is_off():
    # unset: compose warns that it is blank; blank: order-api answers 503 TOKEN_GATE_DISABLED and says to set it
    assert environment("order-api")["FLASHSTOCK_TOKEN_KEY"] == "${FLASHSTOCK_TOKEN_KEY}"
