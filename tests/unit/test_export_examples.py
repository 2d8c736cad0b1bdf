"""Every bundled example exports to every format, through the CLI, and each file reads back as its format."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.cli.main import main
from vnetbench.export import FORMATS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))


def _check(fmt: str, path: Path) -> None:
    data = path.read_bytes()
    assert data, f"{path} is empty"
    if fmt in ("svg", "matrix-svg", "results-svg", "drawio"):
        ET.fromstring(data)
    elif fmt in ("png", "matrix-png", "results-png"):
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    elif fmt in ("pdf", "report-pdf"):
        assert data[:5] == b"%PDF-" and b"%%EOF" in data[-1024:]
    elif fmt.endswith("-json"):
        json.loads(data)
    elif fmt.endswith("-csv"):
        assert list(csv.reader(data.decode().splitlines()))
    elif fmt == "report-html":
        assert data.rstrip().endswith(b"</html>")
    elif fmt == "dot":
        assert data.startswith(b"graph ")
    elif fmt == "mermaid":
        assert b"flowchart TB" in data


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".vnet.yaml"))
def test_example_exports_to_every_format(example, tmp_path, capsys):
    assert EXAMPLES, "no bundled examples found"
    for fmt, (_, suffix) in FORMATS.items():
        out = tmp_path / f"out{suffix}"
        code = main(["export", str(example), "--format", fmt, "-o", str(out)])
        assert code == 0, f"{fmt}: {capsys.readouterr().err}"
        _check(fmt, out)


def test_empty_and_dangling_designs_export_to_every_format(tmp_path):
    from vnetbench.export import Options, export
    from vnetbench.model.objects import VM, Link, Switch, Topology, VNic

    designs = {
        "empty": Topology(id="e", name="empty"),
        "dangling": Topology(id="d", name="dangling", switches=[Switch("s", "s", host="gone")],
                             vms=[VM("v", "v", host="nohost", vnics=[VNic("n", "eth0", network="nothing")])],
                             links=[Link("l", "v", "nowhere")]),
    }
    for name, topology in designs.items():
        for fmt, (_, suffix) in FORMATS.items():
            out = tmp_path / f"{name}{suffix}"
            export(topology, fmt, out, Options())
            _check(fmt, out)
