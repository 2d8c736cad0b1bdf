"""The notebook API: ``vnetbench.load``, ``predict`` and ``matrix``, and the docs page's session, run as written."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

import vnetbench
from vnetbench import resources_dir
from vnetbench.model import Topology, VM

DOC = resources_dir() / "docs" / "python-api.md"
EXAMPLE = resources_dir() / "examples" / "nsx-dfw.vnet.yaml"
SCALARS = (str, int, float, bool, type(None))


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_docs_session_runs_as_written(monkeypatch, capsys):
    monkeypatch.chdir(resources_dir().parent)
    namespace: dict = {}
    blocks = python_blocks()
    assert len(blocks) >= 3
    for block in blocks:
        if "import pandas" in block and importlib.util.find_spec("pandas") is None:
            continue       # pandas is no dependency: that block runs where it is installed
        exec(compile(block, str(DOC), "exec"), namespace)
    out = capsys.readouterr().out
    assert "in-host-routed" in out and "pairs;" in out


def test_records_are_flat_rows_a_dataframe_takes():
    prediction = vnetbench.predict(str(EXAMPLE), "web01", "app01", proto="tcp", port=443)
    records = prediction.to_records()
    assert records and all(set(r) == set(records[0]) for r in records)
    assert all(isinstance(v, SCALARS) for r in records for v in r.values())
    assert {r["direction"] for r in records} == {"forward", "reverse"}
    assert records[0]["kind"] == "vnic" and records[0]["name"] == "web01/eth0"
    rows = vnetbench.matrix(vnetbench.load(EXAMPLE))
    vms = len(load_names())
    assert len(rows) == vms * (vms - 1)
    assert all(isinstance(v, SCALARS) for r in rows for v in r.values())
    web_app = next(r for r in rows if (r["src_name"], r["dst_name"]) == ("web01", "app01"))
    assert web_app["verdict"] == str(vnetbench.predict(EXAMPLE, "web01", "app01").verdict)


def load_names() -> list[str]:
    return [vm.name for vm in vnetbench.load(EXAMPLE).vms]


def test_the_html_of_a_prediction_escapes_every_name():
    design = Topology(id="t", name="x", vms=[VM(id="a", name="<script>alert(1)</script>"),
                                             VM(id="b", name="b&amp;")])
    shown = vnetbench.predict(design, "a", "b")._repr_html_()
    assert "<script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert "b&amp;amp;" in shown


def test_an_unknown_endpoint_is_a_lookup_error_naming_it():
    with pytest.raises(LookupError, match="web99"):
        vnetbench.predict(EXAMPLE, "web99", "app01")


def test_importing_vnetbench_loads_no_prediction_code():
    code = ("import sys, vnetbench; print(sorted(m for m in sys.modules if m.startswith(('vnetbench.', 'numpy', "
            "'networkx', 'yaml'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0 and done.stdout.strip() == "[]"
