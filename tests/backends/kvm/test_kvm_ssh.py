"""A remote KVM host, reached the way the plugin README says: ``uri=qemu+ssh://HOST/system`` and
``host_exec=ssh HOST`` (issue 30, KVM 2). The host is the test's own (libvirtd, virtlogd and OVS in a network
and mount namespace, ``kvmhost.py``), with a real sshd in it; the vnetbench commands run in that network
namespace but on this machine's mounts, so libvirt and the host's ``ip``/``ovs-vsctl`` are reachable only
through ssh. Deploy, a second deploy (nothing to change), measure, import and teardown go through it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kvm_designs import bridge_guests
from kvmhost import SshRemote, listing

from vnetbench.model import NicType, load, save

pytestmark = [pytest.mark.lab, pytest.mark.slow]


@pytest.fixture(scope="module")
def remote(kvm_host, tmp_path_factory):
    if not Path("/usr/sbin/sshd").exists():
        pytest.skip("openssh-server is not installed (scripts/setup.sh test installs it)")
    ssh = SshRemote(kvm_host, tmp_path_factory.mktemp("ssh"))
    ssh.start()
    try:
        yield ssh
    finally:
        ssh.stop()


def _vnetbench(remote: SshRemote, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    sets = ["--set", f"uri={remote.uri}", "--set", f"host_exec={remote.host_exec}", "--set", "accel=qemu"]
    return subprocess.run(remote.client([sys.executable, "-m", "vnetbench", *args, "--backend", "kvm", *sets]),
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path / "data")})


def test_deploy_measure_import_and_teardown_through_ssh(remote, kvm_host, tmp_path):
    design = bridge_guests(NicType.VIRTIO, 2, "kvm-over-ssh")
    path = tmp_path / "ssh.vnet.yaml"
    save(design, path)
    deploy = _vnetbench(remote, tmp_path, "deploy", str(path))
    assert deploy.returncode == 0, deploy.stdout + deploy.stderr
    assert "failed" not in deploy.stdout
    again = _vnetbench(remote, tmp_path, "deploy", str(path))
    assert again.returncode == 0 and "nothing to change" in again.stdout, again.stdout + again.stderr
    measure = _vnetbench(remote, tmp_path, "measure", str(path), "--from", "virtio-0", "--to", "virtio-1",
                         "--test", "throughput", "--duration", "2", "--json")
    assert measure.returncode in (0, 1), measure.stderr          # 1: a rate far from the estimate (busy machine)
    run = json.loads(measure.stdout)
    assert run["run"]["status"] == "ok", measure.stderr
    assert run["run"]["summary"], run
    imported = tmp_path / "imported.vnet.yaml"
    read = _vnetbench(remote, tmp_path, "import", "-o", str(imported))
    assert read.returncode == 0, read.stdout + read.stderr
    topo = load(imported)
    vms = {vm.name: vm for vm in topo.vms}
    assert {"virtio-0", "virtio-1", "admins-vm"} <= set(vms)
    assert [h.name for h in topo.hosts] == ["kvm01"]                  # issue 30, KVM 7: kept, not "kvm"
    assert [vms[f"virtio-{i}"].vnics[0].ip for i in (0, 1)] == ["10.50.0.10/24", "10.50.0.11/24"]
    assert "no address could be read" not in read.stderr             # admins-vm has no vNIC to address
    teardown = _vnetbench(remote, tmp_path, "teardown", str(path))
    assert teardown.returncode == 0, teardown.stdout + teardown.stderr
    assert listing(kvm_host) == kvm_host.before
