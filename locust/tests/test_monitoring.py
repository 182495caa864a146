"""The Prometheus and Grafana pair of docker-compose.yml, checked offline: the provisioned dashboard is valid JSON
whose panels query the provisioned datasource, and Prometheus scrapes the services compose runs. That each
metric a query names is exposed is checked against the real services by DashboardIT (system-tests), which reads
the names with the pattern below; this test makes sure the pattern catches every name the queries use."""
import json
import re
from pathlib import Path

from ruamel.yaml import YAML  # comes with check-jsonschema (scripts/requirements-tools.txt)

ROOT = Path(__file__).resolve().parents[2]
MONITORING = ROOT / "monitoring"
DASHBOARD = MONITORING / "grafana/dashboards/flashstock.json"
# the pattern DashboardIT uses to find metric names in the queries
METRIC = re.compile(r"\b((?:flashstock|stock|process|jvm|system)_[a-z0-9_]+)")
PROMQL_WORDS = {"sum", "avg", "min", "max", "count", "by", "without", "on", "ignoring", "le", "outcome", "job",
                "partition"}


def yaml(path: Path):
    return YAML(typ="safe").load(path.read_text())


def dashboard() -> dict:
    return json.loads(DASHBOARD.read_text())


def test_every_panel_queries_the_provisioned_datasource():
    uid = yaml(MONITORING / "grafana/provisioning/datasources/prometheus.yml")["datasources"][0]["uid"]
    panels = dashboard()["panels"]
    assert panels
    assert len({p["id"] for p in panels}) == len(panels)
    for panel in panels:
        assert panel["datasource"]["uid"] == uid, panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == uid
            assert target["expr"].strip()


def test_panels_fit_the_grid_without_overlapping():
    taken = set()
    for panel in dashboard()["panels"]:
        g = panel["gridPos"]
        assert 0 <= g["x"] and g["x"] + g["w"] <= 24, panel["title"]
        cells = {(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])}
        assert not cells & taken, panel["title"]
        taken |= cells


def test_the_metric_pattern_catches_every_name_a_query_uses():
    for panel in dashboard()["panels"]:
        for target in panel["targets"]:
            expr = re.sub(r"\[[^]]*]", "", target["expr"])  # ranges such as [$__rate_interval]
            expr = re.sub(r"\{[^}]*}", "", expr)  # label matchers
            names = {m.group() for m in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*", expr)
                     if not expr[m.end():].lstrip().startswith("(") and m.group() not in PROMQL_WORDS}
            assert names, target["expr"]
            assert names == set(METRIC.findall(expr)), target["expr"]


def test_prometheus_scrapes_the_services_compose_runs():
    compose = yaml(ROOT / "docker-compose.yml")["services"]
    jobs = yaml(MONITORING / "prometheus.yml")["scrape_configs"]
    assert {j["job_name"] for j in jobs} == {"order-api", "outbox-relay", "stock-consumer"}
    for job in jobs:
        assert job["metrics_path"] == "/actuator/prometheus"
        host, port = job["static_configs"][0]["targets"][0].split(":")
        assert host == job["job_name"] and host in compose
        assert f"{port}:{port}" in compose[host]["ports"]


def test_compose_mounts_the_provisioning_where_grafana_reads_it():
    compose = yaml(ROOT / "docker-compose.yml")["services"]
    mounts = dict(v.removesuffix(":ro").split(":", 1)[::-1] for v in compose["grafana"]["volumes"])
    assert (ROOT / mounts["/etc/grafana/provisioning"].removeprefix("./")).is_dir()
    dashboards = ROOT / mounts["/var/lib/grafana/dashboards"].removeprefix("./")
    assert (dashboards / DASHBOARD.name).is_file()
    provider = yaml(MONITORING / "grafana/provisioning/dashboards/flashstock.yml")["providers"][0]
    assert provider["options"]["path"] == "/var/lib/grafana/dashboards"
    prometheus = {v.removesuffix(":ro").split(":", 1)[1]: v.split(":", 1)[0] for v in compose["prometheus"]["volumes"]}
    assert (ROOT / prometheus["/etc/prometheus/prometheus.yml"].removeprefix("./")).is_file()
