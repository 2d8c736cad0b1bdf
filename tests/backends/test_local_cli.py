"""``vnetbench lab`` end to end through the CLI (root mode), with its exit codes."""

from __future__ import annotations

import json
import os

import pytest
from lab_designs import campus, looped

from vnetbench.cli.main import main
from vnetbench.model import save

pytestmark = pytest.mark.lab


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "state"))

    def run(*argv):
        capsys.readouterr()
        code = main(["lab", "--mode", "root", *argv])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_lab_up_status_exec_down(cli, tmp_path):
    design = campus(vms_per_host=1, hosts=2)
    path = str(tmp_path / "campus.vnet.yaml")
    save(design, path)
    try:
        code, out, _ = cli("up", path, "--yes", "--json")
        assert code == 0 and all(r["ok"] for r in json.loads(out)) and len(json.loads(out)) > 10
        code, out, _ = cli("up", path)
        assert code == 0 and "nothing to change" in out
        code, out, _ = cli("plan", path, "--json")
        assert code == 0 and json.loads(out)["changes"] == []
        code, out, _ = cli("status", path, "--json")
        assert code == 0 and {v["state"] for v in json.loads(out).values()} == {"deployed"}
        code, out, _ = cli("status")
        assert code == 0 and design.id in out
        code, out, _ = cli("exec", path, "h0v0", "--", "ping", "-c3", "-i0.3", "-W2", "10.10.1.10")
        assert code == 0 and " received" in out and "0 received" not in out
        assert cli("exec", path, "h0v0", "--", "false")[0] == 1
        code, out, _ = cli("exec", "--json", path, "h0v0", "--", "sh", "-c", "echo hi; echo oops >&2; exit 3")
        assert code == 3 and json.loads(out) == {"vm": "h0v0", "argv": ["sh", "-c", "echo hi; echo oops >&2; exit 3"],
                                                 "exit_code": 3, "stdout": ["hi"], "stderr": "oops\n"}
        code, _, err = cli("exec", path, "nosuchvm", "--", "true")
        assert code == 3 and "no VM or physical host named 'nosuchvm'" in err
    finally:
        code, out, _ = cli("down", path)
    assert code == 0 and "removed namespaces: 6 of 6" in out
    code, out, _ = cli("status", path, "--json")
    assert {v["state"] for v in json.loads(out).values()} == {"absent"}


def test_lab_refuses_bad_input(cli, tmp_path):
    path = str(tmp_path / "loop.vnet.yaml")
    save(looped(), path)
    code, _, err = cli("up", path, "--yes")
    assert code == 2 and "loop" in err and "cannot build" in err
    assert cli("down")[0] == 2
    (tmp_path / "broken.vnet.yaml").write_text("format_version: 1\nid: [\n")
    code, _, err = cli("plan", str(tmp_path / "broken.vnet.yaml"))
    assert code == 2 and "broken.vnet.yaml" in err
