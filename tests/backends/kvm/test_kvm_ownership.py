"""The KVM backend on a real libvirtd + userspace Open vSwitch, with no guest booted (issue 30, KVM 1, 3, 4, 5, 8).

Objects that carry the names vnetbench gives but not its mark (a domain, a network, a Linux bridge, an OVS
bridge, a namespace, an OVS internal port) are conflicts: deploy reports them, fails only the changes they
block, and neither deploy nor teardown touches them. With ``pnics=real`` the host's own uplink is enslaved
once: a second apply is a no-op. A missing guest kernel is refused before the host is touched, planning
builds no guest image, and two deploys of one design do not run into each other. No guest boots here.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kvmhost import listing

from vnetbench.model import Host, HostKind, PNic, Switch, SwitchKind, Topology, Uplink, load, save

pytestmark = [pytest.mark.lab]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-nic-models.vnet.yaml"
# The names the report found replaced: design example-kvm-nic-models has the tag 496e5c.
DOMAIN, NETWORK, BRIDGE, OVS = "vnb-496e5c-virtio-a", "vnb-496e5c-br0", "vb496e5c505e2", "vb496e5c87000"
NAMESPACE, OVS_PORT = "vnk496e5c-s-admins", "vb496e5cabcde"


def _backend(kvm_host, **extra):
    from vnetbench_kvm import KvmBackend

    backend = KvmBackend(kvm_host.settings(accel="qemu", **extra))
    backend.connect()
    return backend


def _one_guest():
    design = load(EXAMPLE)
    design.vms = [vm for vm in design.vms if vm.name == "virtio-a"]
    return design


def _state(kvm_host) -> dict[str, object]:
    """The hand-made objects as the host holds them (XML, alias, external ids), to prove they were not touched."""
    import libvirt

    conn = libvirt.open(kvm_host.uri)
    try:
        out = {"domain": conn.lookupByName(DOMAIN).XMLDesc(0), "network": conn.networkLookupByName(NETWORK).XMLDesc(0)}
    finally:
        conn.close()
    link = json.loads(kvm_host.run(["ip", "-j", "-d", "link", "show", "dev", BRIDGE]).stdout)[0]
    out["bridge"] = (link.get("ifalias"), link["linkinfo"]["info_kind"], link.get("ifindex"))
    out["ovs"] = kvm_host.run(["ovs-vsctl", "--columns=external_ids,datapath_type", "list", "bridge", OVS]).stdout
    return out


def test_hand_made_objects_named_like_vnetbench_are_conflicts_deploy_and_teardown_leave(kvm_host):
    import libvirt

    design = _one_guest()
    kvm_host.run(["ip", "link", "add", BRIDGE, "type", "bridge"])
    kvm_host.run(["ovs-vsctl", "--timeout=30", "add-br", OVS, "--", "set", "bridge", OVS, "datapath_type=netdev"])
    conn = libvirt.open(kvm_host.uri)
    conn.defineXML(f"<domain type='qemu'><name>{DOMAIN}</name><memory unit='MiB'>64</memory>"
                   "<os><type arch='x86_64' machine='pc'>hvm</type></os></domain>")
    conn.networkDefineXML(f"<network><name>{NETWORK}</name><forward mode='bridge'/><bridge name='{BRIDGE}'/>"
                          "</network>").create()
    conn.close()
    before = _state(kvm_host)
    backend = _backend(kvm_host)
    try:
        plan = backend.plan(design)
        conflicts = {c.key: c.data["conflict"] for c in plan.changes if c.data.get("conflict")}
        assert set(conflicts) == {f"domain/{DOMAIN}", f"bridge/{NETWORK}", "ovs/vnb-496e5c-ovs0"}, conflicts
        assert f"a libvirt domain {DOMAIN}" in conflicts[f"domain/{DOMAIN}"]
        assert f"a libvirt network {NETWORK}" in conflicts[f"bridge/{NETWORK}"]
        assert f"an Open vSwitch bridge {OVS}" in conflicts["ovs/vnb-496e5c-ovs0"]
        results = {r.change.key: r for r in backend.apply(plan)}
        assert results["pswitch/vnk496e5c-s-psw_tor1"].ok        # a change no conflict blocks goes ahead
        assert {k for k, r in results.items() if not r.ok} == {f"domain/{DOMAIN}", f"bridge/{NETWORK}",
                                                               "ovs/vnb-496e5c-ovs0", "pnic/vi496e5c9841e"}
        assert _state(kvm_host) == before
        assert all(r.ok for r in backend.teardown(design.id))
        assert _state(kvm_host) == before
        assert "vnk496e5c-s-psw_tor1" not in kvm_host.run(["ip", "netns"]).stdout
    finally:
        backend.close()
        conn = libvirt.open(kvm_host.uri)
        conn.lookupByName(DOMAIN).undefine()
        net = conn.networkLookupByName(NETWORK)
        net.destroy()
        net.undefine()
        conn.close()
        kvm_host.run(["ip", "link", "del", BRIDGE], check=False)
        kvm_host.run(["ovs-vsctl", "--timeout=30", "--if-exists", "del-br", OVS])
    assert listing(kvm_host) == kvm_host.before


def test_teardown_of_a_design_never_deployed_removes_nothing(kvm_host):
    kvm_host.run(["ip", "link", "add", BRIDGE, "type", "bridge"])
    kvm_host.run(["ip", "netns", "add", NAMESPACE])
    kvm_host.run(["ovs-vsctl", "--timeout=30", "add-port", "ovs-admin", OVS_PORT, "--", "set", "interface", OVS_PORT,
                  "type=internal"])
    try:
        held = listing(kvm_host)
        assert OVS_PORT in held["links"] and BRIDGE in held["links"] and NAMESPACE in held["netns"]
        backend = _backend(kvm_host)
        try:
            results = backend.teardown(_one_guest().id)
            assert all(r.ok for r in results), [r.error for r in results]
            assert all(r.ok for r in backend.teardown())      # every design: still nothing of theirs
        finally:
            backend.close()
        assert listing(kvm_host) == held
    finally:
        kvm_host.run(["ip", "link", "del", BRIDGE], check=False)
        kvm_host.run(["ip", "netns", "del", NAMESPACE], check=False)
        kvm_host.run(["ovs-vsctl", "--timeout=30", "--if-exists", "del-port", "ovs-admin", OVS_PORT])
    assert listing(kvm_host) == kvm_host.before


def _uplinks() -> Topology:
    """The host's own eth0 under a Linux bridge; no guests. (VLAN sub-interfaces need the 8021q module, which
    this machine lacks: they carry the want's mark like any link vnetbench makes.)"""
    host = Host("h", "kvm01", HostKind.KVM, pnics=[PNic("h-eth0", "eth0")])
    switches = [Switch("br0", "br0", SwitchKind.LINUX_BRIDGE, host="h", uplinks=[Uplink("h-eth0")])]
    return Topology("kvm-real-uplinks", "real uplinks", hosts=[host], switches=switches)


def test_real_pnics_converge_a_second_apply_is_a_no_op(kvm_host):
    """Issue 30, KVM 3: with pnics=real every deploy planned "create pnic" again and let go of the uplink."""
    kvm_host.run(["ip", "link", "add", "eth0", "type", "veth", "peer", "name", "eth0-wire"])   # no dummy module here
    kvm_host.run(["ip", "link", "set", "eth0", "alias", "the admin's uplink"])
    design = _uplinks()
    backend = _backend(kvm_host, pnics="real")
    try:
        results = backend.apply(backend.plan(design))
        assert results and all(r.ok for r in results), [r.error for r in results if not r.ok]
        eth0 = json.loads(kvm_host.run(["ip", "-j", "-d", "link", "show", "dev", "eth0"]).stdout)[0]
        ifindex = eth0["ifindex"]
        assert eth0.get("master", "").startswith("vb") and eth0["ifalias"] == "the admin's uplink"
        again = backend.plan(design)
        assert again.empty, [str(c) for c in again.changes]
        changed = copy.deepcopy(design)
        changed.switches[0].mtu = 9000
        assert [c.kind for c in backend.plan(changed).changes] == ["bridge", "pnic"]
        assert all(r.ok for r in backend.teardown(design.id))
        eth0 = json.loads(kvm_host.run(["ip", "-j", "-d", "link", "show", "dev", "eth0"]).stdout)[0]
        assert eth0["ifindex"] == ifindex and "master" not in eth0 and eth0["ifalias"] == "the admin's uplink"
    finally:
        backend.close()
        kvm_host.run(["ip", "link", "del", "eth0"], check=False)
    assert listing(kvm_host) == kvm_host.before


def _cli(kvm_host, *args: str, env: dict[str, str] | None = None, **settings: str) -> subprocess.CompletedProcess:
    sets = [x for k, v in kvm_host.settings(**settings).items() for x in ("--set", f"{k}={v}")]
    return subprocess.run([sys.executable, "-m", "vnetbench", *args, "--backend", "kvm", *sets], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


def test_a_missing_guest_kernel_is_refused_before_the_host_is_touched(kvm_host):
    """Issue 30, KVM 4: the kernel was found missing only after the switches and pNICs were built."""
    proc = _cli(kvm_host, "deploy", str(EXAMPLE), image="/nowhere/vmlinuz,/nowhere/initrd.img")
    assert proc.returncode == 2, proc.stderr
    assert "/nowhere/vmlinuz" in proc.stderr and "Traceback" not in proc.stderr
    assert listing(kvm_host) == kvm_host.before


def test_plan_only_builds_no_guest_image(kvm_host, tmp_path):
    """Issue 30, KVM 8: `deploy --plan-only` built the probe guest image (a side effect, about 24 s)."""
    proc = _cli(kvm_host, "deploy", str(EXAMPLE), "--plan-only", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert "create domain" in proc.stdout or "guest virtio-a" in proc.stdout
    assert list(tmp_path.rglob("*")) == []
    assert listing(kvm_host) == kvm_host.before


def test_two_deploys_of_one_design_do_not_run_into_each_other(kvm_host, tmp_path):
    """Issue 30, KVM 5: two deploys 0.3 s apart both failed half-way. The second now waits for the design's
    lock (or says the first is running); nothing fails."""
    design = load(EXAMPLE)
    design.vms = []
    path = tmp_path / "no-guests.vnet.yaml"
    save(design, path)
    sets = [x for k, v in kvm_host.settings(accel="qemu").items() for x in ("--set", f"{k}={v}")]
    argv = [sys.executable, "-m", "vnetbench", "deploy", str(path), "--backend", "kvm", *sets]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    second = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, out + err
    assert second.returncode == 0 or (second.returncode == 3 and "is running" in second.stderr), \
        second.stdout + second.stderr
    assert "failed" not in second.stdout
    backend = _backend(kvm_host)
    try:
        assert backend.plan(design).empty
        assert all(r.ok for r in backend.teardown(design.id))
    finally:
        backend.close()
    assert listing(kvm_host) == kvm_host.before


def test_a_deploy_says_at_once_when_the_designs_lock_is_held(kvm_host):
    from vnetbench.backends.locking import LockFile, private_dir
    from vnetbench.backends.planning import design_tag

    with LockFile(private_dir() / f"kvm-{design_tag(load(EXAMPLE).id)}.lock"):
        proc = _cli(kvm_host, "deploy", str(EXAMPLE), accel="qemu")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert f"is running (pid {os.getpid()})" in proc.stderr and "Traceback" not in proc.stderr
    assert listing(kvm_host) == kvm_host.before
