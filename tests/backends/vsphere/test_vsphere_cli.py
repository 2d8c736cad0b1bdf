"""``vnetbench deploy`` / ``teardown`` against vcsim, through the real CLI entry point."""

from __future__ import annotations

import json
import socket

import pytest
from vnetbench.backends.discovery import discover
from vnetbench.cli.main import main
from vnetbench.model import save
from vnetbench_vsphere.connection import KEYRING_SERVICE

from vcsim_tools import sim_fingerprint
from vsphere_designs import lab_design


@pytest.fixture
def cli_args(vcsim, memory_keyring, tmp_path):
    memory_keyring.set_password(KEYRING_SERVICE, f"{vcsim.user}@{vcsim.hostport}", vcsim.password)
    path = tmp_path / "lab.vnet.yaml"
    save(lab_design(), path)
    return str(path), ["--backend", "vsphere", "--url", vcsim.url, "--user", vcsim.user,
                       "--trust-fingerprint", sim_fingerprint(vcsim), "--set", f"pin_file={tmp_path / 'pins.json'}"]


def test_deploy_plan_only_apply_reapply_teardown(cli_args, capsys, vcsim):
    path, args = cli_args
    assert main(["deploy", path, *args, "--plan-only", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert len(plan["changes"]) == 10 and plan["changes"][0]["op"] == "create"
    assert "vnb-test-a" not in vcsim.govc("find", "/", "-type", "m"), "plan-only changed nothing"

    assert main(["deploy", path, *args]) == 0
    out, err = capsys.readouterr()
    assert "10 changes on vsphere" in out and "applied 10 of 10 changes" in out and "[10/10]" in err
    assert "vnb-test-a" in vcsim.govc("find", "/", "-type", "m")

    assert main(["deploy", path, *args]) == 0
    assert "nothing to change" in capsys.readouterr().out

    assert main(["teardown", path, *args, "--json"]) == 0
    removed = json.loads(capsys.readouterr().out)["results"]
    assert len(removed) == 10 and all(r["ok"] for r in removed)
    assert "vnb-test-a" not in vcsim.govc("find", "/", "-type", "m")


def test_failures_are_one_line_with_exit_codes(cli_args, capsys, tmp_path, vcsim):
    path, args = cli_args
    assert main(["teardown", *args]) == 2
    assert "give a design FILE, or --all" in capsys.readouterr().err
    assert main(["deploy", path, "--backend", "nope"]) == 2
    assert "no backend named 'nope'" in capsys.readouterr().err
    untrusted = [a for a in args if a != sim_fingerprint(vcsim) and a != "--trust-fingerprint"]
    untrusted[-1] = f"pin_file={tmp_path / 'other-pins.json'}"
    assert main(["deploy", path, *untrusted]) == 3
    err = capsys.readouterr().err
    assert "SHA-256 fingerprint" in err and "Traceback" not in err and vcsim.password not in err
    bad = lab_design()
    bad.vms[0].vnics[0].network = None
    save(bad, tmp_path / "bad.vnet.yaml")
    assert main(["deploy", str(tmp_path / "bad.vnet.yaml"), *args]) == 2
    assert "is on no network" in capsys.readouterr().err


def test_deploy_is_generic_over_backends(tmp_path, capsys):
    if not any(p.name == "local" and p.ok for p in discover()):
        pytest.skip("the local backend plugin does not load in this checkout")
    path = tmp_path / "lab.vnet.yaml"
    save(lab_design(), path)
    code = main(["deploy", str(path), "--backend", "local", "--plan-only"])
    out, err = capsys.readouterr()
    assert code in (0, 2), err  # a plan, or a clear refusal of what the local lab cannot build
    assert "Traceback" not in err


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", '{"127.0.0.1:1": "zz"}', "\udcff"])
def test_a_corrupt_pin_file_is_one_clear_line(cli_args, capsys, tmp_path, content):
    path, args = cli_args
    (tmp_path / "pins.json").write_text(content, encoding="utf-8", errors="surrogateescape")
    assert main(["deploy", path, *args, "--plan-only"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"the certificate pin file {tmp_path / 'pins.json'}" in err and "trust the server's fingerprint again" in err


@pytest.mark.parametrize("tail", ["/ui", "/sdk/vimService", "/?x=1"])
def test_an_address_that_does_not_end_in_sdk_is_one_clear_line(cli_args, capsys, vcsim, tail):
    path, args = cli_args
    args = [a.replace(vcsim.url, f"https://{vcsim.hostport}{tail}") for a in args]
    assert main(["deploy", path, *args, "--plan-only"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "does not end in /sdk" in err and f"write https://{vcsim.hostport}/sdk" in err


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_measure_a_vm_ssh_cannot_reach_is_one_line_naming_vm_address_and_fix(cli_args, capsys, tmp_path):
    path, args = cli_args
    assert main(["deploy", path, *args]) == 0
    design = lab_design()
    design.vms[0].vnics[0].ip = "127.0.0.1/8"  # vnb-test-a: ssh is refused there (a closed port)
    design.vms[1].vnics[0].ip = "127.0.0.2/8"
    save(design, path)
    capsys.readouterr()
    probe = ["--set", f"ssh_port={_closed_port()}", "--set", f"ssh_known_hosts={tmp_path / 'known_hosts'}"]
    code = main(["measure", path, "--from", "vnb-test-a", "--to", "vnb-test-b", "--test", "throughput",
                 "--no-store", *args, *probe])
    err = capsys.readouterr().err.splitlines()
    failure = [line for line in err if line.startswith("vnetbench measure:")]
    assert code == 3, err
    assert len(failure) == 1 and not any("Traceback" in line for line in err), err
    assert "VM vnb-test-a" in failure[0] and "127.0.0.1" in failure[0] and "sshd" in failure[0], failure

    code = main(["measure", path, "--from", "vnb-test-c", "--to", "vnb-test-b", "--test", "throughput",
                 "--no-store", *args, *probe])
    err = capsys.readouterr().err
    assert code == 3 and "VM vnb-test-c has no IPv4 address" in err
    assert "lab up" not in err, "a vSphere VM without an address is not told to run the local lab"
