"""The KVM backend's pNIC counters (what ``vnetbench verify`` reads around a burst to see which pNICs carried it).

They are read on the KVM host from ``/proc/net/dev`` for each pNIC's wires. Here the "host" is a network
namespace the test makes (``host_exec`` = ``ip netns exec NS``), holding veths named as the wires of ``kvm-nic-models``' pNICs, with real traffic between them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("libvirt")

from vnetbench.backends import BackendError
from vnetbench.model import load

from vnetbench_kvm import KvmBackend
from vnetbench_kvm.hostside import HostShell

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-nic-models.vnet.yaml"


def _wires(backend, design):
    return {w.object_id: [x["host_if"] for x in w.spec["wires"]] for w in backend.desired(design).wants.values()
            if w.kind == "pnic"}


@pytest.fixture
def host_ns():
    """The namespace that plays the KVM host, and one that plays what its pNIC eth0 is cabled to."""
    if os.geteuid() != 0:
        pytest.skip("needs root to make a namespace")
    names = [f"vnbt26c{os.getpid()}", f"vnbt26s{os.getpid()}"]
    for ns in names:
        subprocess.run(["ip", "netns", "add", ns], check=True)
        # no IPv6 on new links: router solicitations and MLD reports would otherwise land in the counts
        for key in ("default", "all"):
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"net.ipv6.conf.{key}.disable_ipv6=1"],
                           check=True)
    yield names
    for ns in names:
        subprocess.run(["ip", "netns", "del", ns], check=False)


def test_the_counters_are_the_bytes_each_pnics_wires_carried_on_the_host(host_ns):
    host, switch = host_ns
    design = load(EXAMPLE)
    backend = KvmBackend({"uri": "qemu:///system", "host_exec": f"ip netns exec {host}"})
    wires = _wires(backend, design)
    assert set(wires) == {"pnic-kvm01-eth0", "pnic-kvm01-eth1"}, wires
    for devs in wires.values():
        for dev in devs:               # each wire: a veth whose other end is on the "switch"
            subprocess.run(["ip", "-n", host, "link", "add", dev, "type", "veth", "peer", "name", f"{dev}x",
                            "netns", switch], check=True)
            subprocess.run(["ip", "-n", host, "link", "set", dev, "up"], check=True)
            subprocess.run(["ip", "-n", switch, "link", "set", f"{dev}x", "up"], check=True)
    wire = wires["pnic-kvm01-eth0"][0]
    subprocess.run(["ip", "-n", host, "addr", "add", "10.99.0.1/30", "dev", wire], check=True)
    subprocess.run(["ip", "-n", switch, "addr", "add", "10.99.0.2/30", "dev", f"{wire}x"], check=True)
    subprocess.run(["ip", "netns", "exec", host, "ping", "-q", "-c", "1", "-W", "2", "10.99.0.2"], check=True,
                   capture_output=True)                     # the address lookup, before the count starts
    before = backend.pnic_counters(design)
    # 20 echoes of 1000-byte packets out through eth0's wire: 20 requests and 20 replies of 1014-byte frames
    subprocess.run(["ip", "netns", "exec", host, "ping", "-q", "-c", "20", "-i", "0.01", "-s", "972", "10.99.0.2"],
                   check=True, capture_output=True)
    after = backend.pnic_counters(design)
    delta = {k: after[k] - before[k] for k in after}
    assert 40 * 1014 <= delta["pnic-kvm01-eth0"] < 40 * 1014 + 400, delta
    assert delta["pnic-kvm01-eth1"] == 0, delta            # eth1 carried nothing: no echo, and no IPv6 chirp


def test_a_test_driver_has_no_host_to_count_on():
    design = load(EXAMPLE)
    backend = KvmBackend({"uri": "test:///default"})
    with pytest.raises(BackendError, match="test driver"):
        backend.pnic_counters(design)


def test_the_manifest_declares_the_counters():
    assert KvmBackend.probe_capabilities.counters is True


def test_a_host_is_read_in_one_command():
    design = load(EXAMPLE)
    backend = KvmBackend({"uri": "qemu:///system"})
    calls = []

    class Shell(HostShell):
        def run(self, argv, check=True, stdin=None):
            calls.append(argv)
            devs = [d for ds in _wires(backend, design).values() for d in ds]
            table = "".join(f"  {d}: 10 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n" for d in devs)
            return subprocess.CompletedProcess(argv, 0, "Inter-|   Receive |  Transmit\n face |bytes\n" + table, "")

    backend.shell_factory = Shell
    per_wire = {k: 15 * len(v) for k, v in _wires(backend, design).items()}
    assert backend.pnic_counters(design) == per_wire
    assert calls == [["cat", "/proc/net/dev"]]             # one read per host, whatever the number of wires
