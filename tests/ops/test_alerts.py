"""The operators' alerting rules and dashboard (docs/operations.md, "Dashboards and
alerts"): promtool accepts the rules and their unit tests pass, Prometheus and Grafana
find them where docker-compose mounts them, and every metric they name is one the
service exports."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask.testing import FlaskClient

from tests.servers import ROOT

OPS = ROOT / "ops"
RULES = OPS / "alerts.yml"
RULE_TESTS = OPS / "alerts.test.yml"
PROMETHEUS = OPS / "prometheus.yml"
DASHBOARD = OPS / "grafana" / "dashboards" / "basra.json"
GRAFANA = OPS / "grafana" / "provisioning"
METRIC = re.compile(r"(?<![A-Za-z0-9_])basra_[a-z0-9_]+")
"""A metric name of the service's, wherever it appears (expressions, test series)."""


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    """``promtool args`` run in the checkout; without promtool the test is skipped, or
    fails under CI (where `make system` installs it)."""
    found = shutil.which("promtool")
    if found is None:
        reason = "promtool is not installed (make system installs Debian's prometheus)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; under CI these tests must run")
        pytest.skip(reason)
    return subprocess.run([found, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def alerts() -> list[dict[str, Any]]:
    """The alerting rules of ops/alerts.yml."""
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"] if "alert" in rule]


def panels() -> list[dict[str, Any]]:
    """The dashboard's panels, rows (headers without queries) left out."""
    dashboard = json.loads(DASHBOARD.read_text())
    return [p for p in dashboard["panels"] if p["type"] != "row"]


def queries() -> list[str]:
    """Every PromQL expression of the dashboard: its panels' and its variables'."""
    dashboard = json.loads(DASHBOARD.read_text())
    found = [t["expr"] for p in panels() for t in p["targets"]]
    for variable in dashboard["templating"]["list"]:
        query = variable["definition"]
        label_values = re.fullmatch(r"label_values\((.*), *\w+\)", query)
        found.append(label_values.group(1) if label_values else query)
    return found


def test_promtool_accepts_the_rules() -> None:
    """`promtool check rules ops/alerts.yml` succeeds."""
    checked = promtool("check", "rules", str(RULES.relative_to(ROOT)))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_rules_unit_tests_pass() -> None:
    """`promtool test rules ops/alerts.test.yml` succeeds: each alert fires on its
    series with its labels and annotations, and stays quiet on series close to it."""
    tested = promtool("test", "rules", str(RULE_TESTS.relative_to(ROOT)))
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_is_tested_firing_and_quiet_and_says_what_to_do() -> None:
    """Each alert waits (`for:`), is a page or a ticket, points at the docs, and has a
    unit test where it fires and one where it stays quiet, at the same time."""
    groups = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    cases = [case for group in groups for case in group["alert_rule_test"]]
    for rule in alerts():
        name = rule["alert"]
        assert rule.get("for") and rule["labels"]["severity"] in ("page", "ticket"), name
        assert rule["annotations"]["summary"], name
        assert "docs/operations.md" in rule["annotations"]["description"], name
        fired = {c["eval_time"] for c in cases if c["alertname"] == name and c["exp_alerts"]}
        quiet = {c["eval_time"] for c in cases if c["alertname"] == name and not c["exp_alerts"]}
        assert fired & quiet, f"{name}: no quiet case at the time a firing one is checked"


def test_prometheus_loads_the_rules_where_compose_mounts_them(tmp_path: Path) -> None:
    """ops/prometheus.yml reads the rules at the path docker-compose mounts
    ops/alerts.yml on; with that path pointed at the file, `promtool check config`
    loads the configuration and the rules."""
    config = yaml.safe_load(PROMETHEUS.read_text())
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    [mounted] = config["rule_files"]
    assert f"./ops/alerts.yml:{mounted}:ro" in compose["services"]["prometheus"]["volumes"]
    here = tmp_path / "prometheus.yml"
    here.write_text(yaml.safe_dump({**config, "rule_files": [str(RULES)]}))
    checked = promtool("check", "config", str(here))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{len(alerts())} rules found" in checked.stdout


def test_grafana_is_provisioned_with_the_dashboard_and_its_data_source() -> None:
    """docker-compose mounts Grafana's provisioning and the dashboards from ops/grafana,
    the dashboards' provider reads where they are mounted, and the data source has the
    uid the dashboard's queries name."""
    grafana = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["grafana"]
    mounts = dict(volume.removesuffix(":ro").split(":") for volume in grafana["volumes"])
    assert all((ROOT / source).is_dir() for source in mounts)
    [provider] = yaml.safe_load((GRAFANA / "dashboards" / "basra.yml").read_text())["providers"]
    assert mounts["./ops/grafana/dashboards"] == provider["options"]["path"]
    [source] = yaml.safe_load((GRAFANA / "datasources" / "prometheus.yml").read_text())["datasources"]
    named = {(t["datasource"]["type"], t["datasource"]["uid"]) for p in panels() for t in p["targets"]}
    assert named == {(source["type"], source["uid"])} == {("prometheus", "prometheus")}


def test_every_dashboard_panel_has_a_title_and_a_query() -> None:
    """The dashboard is JSON; every panel has a title, a unique id and at least one
    query with an expression."""
    found = panels()
    assert found
    for panel in found:
        assert panel.get("title"), panel
        assert panel.get("targets") and all(t.get("expr") for t in panel["targets"]), panel["title"]
    assert len({p["id"] for p in found}) == len(found)


def test_every_dashboard_query_is_promql(tmp_path: Path) -> None:
    """Each of the dashboard's expressions, its Grafana variables filled in, parses:
    promtool checks them as recording rules."""
    filled = [q.replace("$__rate_interval", "1m").replace("$job", ".*").replace("$instance", ".*")
              for q in queries()]
    rules = [{"record": f"dashboard:query{i}", "expr": q} for i, q in enumerate(filled)]
    path = tmp_path / "queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    checked = promtool("check", "rules", str(path))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def exported(scrape: str) -> set[str]:
    """Every series name a scrape of this exposition gives Prometheus: the samples', and
    for families without samples yet (labelled, none counted) those their type implies."""
    names: set[str] = set()
    for line in scrape.splitlines():
        if line.startswith("# TYPE "):
            name, kind = line.split()[2:4]
            names.add(name)
            if kind == "counter":
                names.add(name.removesuffix("_total") + "_total")
            elif kind == "histogram":
                names |= {f"{name}_bucket", f"{name}_sum", f"{name}_count"}
        elif line and not line.startswith("#"):
            names.add(re.split(r"[{ ]", line, maxsplit=1)[0])
    return names


def test_every_metric_the_rules_and_dashboard_name_is_exported(client: FlaskClient) -> None:
    """Every `basra_` series named by the dashboard, the alerting rules or their unit
    tests is in the service's /metrics under that exact name (counters with `_total`,
    histograms' `_bucket`), so none of them watches a series that never comes."""
    r = client.get("/metrics")
    assert r.status_code == 200
    served = exported(r.get_data(as_text=True))
    named = {name for path in (DASHBOARD, RULES, RULE_TESTS)
             for name in METRIC.findall(path.read_text())}
    assert {"basra_http_requests_total", "basra_database_primary"} <= named
    assert sorted(named - served) == []
