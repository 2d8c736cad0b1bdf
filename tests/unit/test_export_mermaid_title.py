"""Mermaid's front matter is YAML: any title, ": " and quotes included, reads back as itself."""

from __future__ import annotations

import pytest
import yaml

from vnetbench.export.mermaid import front_matter


@pytest.mark.parametrize("title", ["NSX: distributed firewall", "a 'quoted' \"title\": # not a comment",
                                   "- looks like a list", "x" * 300, "plain", "ünïcode: ok"])
def test_front_matter_reads_back_as_the_title(title):
    lines = front_matter(title)
    assert lines[0] == lines[-1] == "---"
    assert len(lines) == 3, "the title stays on one line"
    assert yaml.safe_load(lines[1]) == {"title": title}
