"""The README and the docs as a clone reads them (issue 54, item 7): links only to files
in the repository, the rules a page of the docs, the port settings named, the worker's
metrics port beside the API's, every tournament system listed."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
import yaml

from tests.servers import ROOT


def test_the_readme_links_only_files_in_the_repository() -> None:
    readme = (ROOT / "README.md").read_text()
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", readme)
               if not re.match(r"[a-z]+:|#", t)]
    assert "docs/rules.md" in targets
    for target in targets:
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), target


def test_the_rules_are_a_page_of_the_docs() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]
    assert {"The rules": "rules.md"} in nav
    assert (ROOT / "docs" / "rules.md").read_text().startswith("# Egyptian Basra")


def test_the_readme_names_the_port_settings() -> None:
    readme = (ROOT / "README.md").read_text()
    for setting in ("make serve PORT=", "HOST", "WORKER_METRICS_PORT"):
        assert setting in readme, setting


@pytest.mark.skipif(not shutil.which("make"), reason="make is not installed")
@pytest.mark.parametrize(("settings", "port"), [
    ((), 9101), (("PORT=8001",), 9102), (("PORT=8001", "WORKER_METRICS_PORT=9300"), 9300)])
def test_two_checkouts_workers_do_not_collide(settings: tuple[str, ...], port: int) -> None:
    """`make serve`'s worker serves its metrics at the API's port + 1101 unless told."""
    planned = subprocess.run(["make", "-n", "serve", *settings], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
    assert f"--metrics-port {port} " in planned, planned


def test_every_tournament_system_is_listed() -> None:
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text())  # as the code makes it
    tags = {tag["name"]: tag["description"] for tag in document["tags"]}
    assert "Swiss, arena and duplicate" in tags["tournaments"]
    for page in ("README.md", "docs/api.md", "docs/console.md", "docs/architecture.md"):
        text = (ROOT / page).read_text()
        assert not re.search(r"Swiss (or|and) arena (tournament|event)s?\b", text), page
