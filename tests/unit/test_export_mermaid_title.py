"""Mermaid's front matter is YAML: any design name, ": " and quotes included, reads back as itself."""

from __future__ import annotations

import pytest
import yaml

from vnetbench.export import diagram_mermaid
from vnetbench.model.objects import Topology


@pytest.mark.parametrize("title", ["NSX: distributed firewall", "a 'quoted' \"title\": # not a comment",
                                   "- looks like a list", "x" * 300, "plain", "ünïcode: ok"])
def test_front_matter_reads_back_as_the_title(title, tmp_path):
    lines = diagram_mermaid(Topology(id="t", name=title), tmp_path / "t.mmd").path.read_text().splitlines()
    assert lines[0] == lines[2] == "---", "the title stays on one line"
    assert yaml.safe_load(lines[1]) == {"title": title}
    assert lines[3] == "flowchart TB"
