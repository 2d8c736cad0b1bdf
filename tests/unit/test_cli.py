"""The validate, show and demo commands: output, exit codes, JSON, and one-line errors (never a traceback)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vnetbench import resources_dir
from vnetbench.cli.main import main
from vnetbench.model import NicType, Security, load, save

EXAMPLES = resources_dir() / "examples"
FOUR = EXAMPLES / "esx-four-cases.vnet.yaml"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vnetbench", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def broken(tmp_path):
    """The four-cases example with an E1000e vNIC in a Debian guest and a gateway outside its subnet."""
    t = load(FOUR)
    t.vms[0].vnics[0].type = NicType.E1000E
    t.vms[3].vnics[0].gateway = "10.30.0.1"
    path = tmp_path / "broken.vnet.yaml"
    save(t, path)
    return path


def test_validate_a_clean_design(capsys):
    assert main(["validate", str(FOUR)]) == 0
    assert capsys.readouterr().out.strip().endswith("no problems")


def test_validate_reports_errors_with_place_message_and_fix(broken, capsys):
    assert main(["validate", str(broken)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("error    vms[0].vnics[0].type  web01/eth0 uses the adapter type e1000e, which a "
                               "Debian 6-8 guest cannot use")
    assert "-> fix: use one of" in lines[0]
    assert any("vms[3].vnics[0].gateway" in line and "outside its subnet 10.31.0.0/24" in line for line in lines)
    assert lines[-1].endswith("2 error(s), 0 warning(s)")


def test_validate_warnings_only_exit_0(tmp_path, capsys):
    t = load(EXAMPLES / "esx-firewall-vm.vnet.yaml")
    t.vms[2].forwarding.mode = "bridged"
    for sw in t.switches:
        for pg in sw.portgroups:
            pg.security = Security(promiscuous=False)
    path = tmp_path / "bridged.vnet.yaml"
    save(t, path)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("warning") >= 3 and "promiscuous" in out and "0 error(s)" in out


def test_validate_json(broken, capsys):
    assert main(["validate", "--json", str(broken)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False and report["errors"] == 2 and report["warnings"] == 0
    first = report["problems"][0]
    assert set(first) == {"severity", "path", "object_id", "message", "hint"}
    assert first["object_id"] == "nic-web01-eth0"


BAD_FILES = {
    "binary.vnet.yaml": b"\x00\x01\x02\xff\xfe junk",
    "latin1.vnet.yaml": "name: caf\xe9\n".encode("latin-1"),
    "syntax.vnet.yaml": b"format_version: 1\nid: [unclosed\n",
    "future.vnet.yaml": b"format_version: 999\nid: x\n",
    "types.vnet.yaml": b"format_version: 1\nid: x\nhosts:\n- id: h\n  name: esx01\n  cpus: many\n",
    "unknown.vnet.yaml": b"format_version: 1\nid: x\nhostz: []\n",
    "alias.vnet.yaml": b"format_version: 1\nid: x\nhosts: &a []\nvms: *a\n",
    "huge.vnet.yaml": b"format_version: 1\nid: x\nhosts: [{id: h, name: n, cpus: 99999999999999999999999}]\n",
    "list.vnet.yaml": b"- 1\n- 2\n",
    "empty.vnet.yaml": b"",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
@pytest.mark.parametrize("command", ["validate", "show", "demo"])
def test_unreadable_files_exit_2_with_one_line_on_stderr(tmp_path, capsys, name, command):
    path = tmp_path / name
    path.write_bytes(BAD_FILES[name])
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"vnetbench {command}: {path}: ")


@pytest.mark.parametrize("name", ["binary.vnet.yaml", "syntax.vnet.yaml", "alias.vnet.yaml", "future.vnet.yaml"])
def test_no_traceback_from_the_real_process(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(BAD_FILES[name])
    result = cli("validate", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_missing_file_and_folder(tmp_path):
    for target, words in ((tmp_path / "nope.vnet.yaml", "no such file"), (tmp_path, "folder")):
        result = cli("validate", str(target))
        assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def test_error_names_the_place_and_the_fix(tmp_path):
    path = tmp_path / "types.vnet.yaml"
    path.write_bytes(BAD_FILES["types.vnet.yaml"])
    stderr = cli("validate", str(path)).stderr
    assert "hosts[0].cpus" in stderr and "expected a whole number" in stderr


def test_exit_codes_through_the_console_script(broken):
    assert cli("validate", str(FOUR)).returncode == 0
    assert cli("validate", str(broken)).returncode == 1


@pytest.mark.parametrize("command", ["validate", "show", "demo"])
def test_help(command):
    result = cli(command, "--help")
    assert result.returncode == 0 and "usage: vnetbench " + command in result.stdout


def test_show_text(capsys):
    assert main(["show", str(EXAMPLES / "vnic-types-lab.vnet.yaml")]) == 0
    out = capsys.readouterr().out
    assert "esx01  esxi, 8 CPUs" in out and "pNIC vmnic0  1 Gbit/s -> lab-sw1/Gi0/1" in out
    assert "portgroup iperf-lab  VLAN 13, 6 vNIC(s)" in out
    assert "deb8-flex-1  on esx01, debian, 4 vCPU" in out and "flexible  vSwitch0/iperf-lab  192.168.13.11/24" in out
    assert "Gi0/2  trunk allowed 13, native 1 <- esx02/vmnic0" in out


def test_show_json(capsys):
    assert main(["show", "--json", str(EXAMPLES / "kvm-tap-macvtap.vnet.yaml")]) == 0
    inv = json.loads(capsys.readouterr().out)
    assert [h["name"] for h in inv["hosts"]] == ["kvm01"]
    assert {s["name"]: s["macvtap_mode"] for s in inv["switches"]} == {
        "br0": None, "macvtap-eth1": "vepa", "macvtap-eth2": "vepa"}
    ports = {p["name"]: p for p in inv["physical"]["switches"][0]["ports"]}
    assert ports["Gi0/3"]["hairpin"] is True and ports["Gi0/2"]["hairpin"] is False
    assert inv["vms"][0]["vnics"][0]["type"] == "virtio"


def test_show_nsx_and_firewall(capsys):
    main(["show", str(EXAMPLES / "nsx-dfw.vnet.yaml")])
    out = capsys.readouterr().out
    assert "DLR dlr-01: lif-web 172.16.10.1/24" in out and "DFW: 3 rule(s), default allow, stateful" in out
    main(["show", str(EXAMPLES / "esx-firewall-vm.vnet.yaml")])
    assert "firewall: routed, 2 rule(s), default allow, stateful" in capsys.readouterr().out


def test_demo_without_the_prediction_engine(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "vnetbench.predict", None)  # import fails as if not installed
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "esx-four-cases.vnet.yaml" in out and "== Validation" in out and "no problems" in out
    assert "== Inventory" in out and "prediction engine not installed" in out


def test_demo_with_the_prediction_engine(capsys):
    pytest.importorskip("vnetbench.predict").Engine  # noqa: B018 - the documented API must exist
    code = main(["demo", str(EXAMPLES / "esx-firewall-vm.vnet.yaml")])
    out = capsys.readouterr().out
    assert "== Verdict matrix" in out and "legend: H in-host" in out
    assert "Predicted vs expected (esx-firewall-vm.expect.yaml)" in out
    assert code == (1 if "DIFF" in out else 0)
