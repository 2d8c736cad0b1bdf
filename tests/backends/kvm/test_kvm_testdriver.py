"""The KVM backend against libvirt's own test driver (``test:///default``): plan, re-apply, one-field changes,
teardown of marked objects only, import, and what the plugin refuses before it touches anything.

The test driver keeps its objects in memory for the life of the process, so each test tears down what it
made; it runs no QEMU and no host plumbing, which the end-to-end tests cover.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

try:
    import libvirt  # noqa: F401 - the test driver comes with libvirt-python
except ImportError:
    if os.environ.get("CI"):      # the setup installs the kvm extra: missing there is a failure
        raise
    pytest.skip("libvirt-python is not installed (pip install -e '.[kvm]')", allow_module_level=True)

from vnetbench.backends import BadSetting, Op, Unsupported, discover
from vnetbench.model import NicType, load
from vnetbench.model.objects import Action, Proto, Route, Rule

from vnetbench_kvm import KvmBackend
from vnetbench_kvm.desired import Boot, desired
from vnetbench_kvm.xml import NS, domain_xml, network_xml, read_mark, Mark

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-nic-models.vnet.yaml"
URI = "test:///default"


@pytest.fixture
def backend():
    b = KvmBackend({"uri": URI})
    b.connect()
    conn = next(iter(b.sites.values())).conn
    before = ({d.name() for d in conn.listAllDomains()}, {n.name() for n in conn.listAllNetworks()})
    yield b
    b.teardown()
    assert ({d.name() for d in conn.listAllDomains()}, {n.name() for n in conn.listAllNetworks()}) == before
    b.close()


def _design():
    return load(EXAMPLE)


def test_the_plugin_is_found_through_its_entry_point():
    info = {p.name: p for p in discover()}["kvm"]
    assert info.ok and info.backend is KvmBackend
    names = [f.name for f in KvmBackend.settings_fields]
    assert names[:2] == ["uri", "image"] and "accel" in names and "machine" in names


def test_plan_apply_and_an_unchanged_design_plans_nothing(backend):
    design = _design()
    plan = backend.plan(design)
    kinds = [c.kind for c in plan.changes]
    assert kinds.count("domain") == 7 and {"bridge", "ovs"} <= set(kinds)
    assert all(c.op is Op.CREATE for c in plan.changes)
    results = backend.apply(plan)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert backend.plan(design).empty
    states = backend.status(design)
    assert states["vm-virtio-a"].state.value == "deployed" and states["sw-kvm01-ovs0"].state.value == "deployed"


def test_one_field_changes_one_object(backend):
    design = _design()
    backend.apply(backend.plan(design))
    changed = copy.deepcopy(design)
    changed.vms[0].vnics[0].type = NicType.E1000
    plan = backend.plan(changed)
    assert [(c.op, c.key) for c in plan.changes] == [(Op.UPDATE, "domain/vnb-496e5c-virtio-a")]
    assert all(r.ok for r in backend.apply(plan))
    conn = next(iter(backend.sites.values())).conn
    xml = ET.fromstring(conn.lookupByName("vnb-496e5c-virtio-a").XMLDesc(0))
    assert xml.find("devices/interface/model").get("type") == "e1000"
    assert backend.plan(changed).empty


def test_a_removed_vm_is_deleted_and_nothing_else(backend):
    design = _design()
    backend.apply(backend.plan(design))
    smaller = copy.deepcopy(design)
    smaller.vms = [vm for vm in smaller.vms if vm.name != "e1000-b"]
    plan = backend.plan(smaller)
    assert [(c.op, c.kind) for c in plan.changes] == [(Op.DELETE, "domain")]
    assert "e1000-b" in plan.changes[0].description


def test_teardown_removes_marked_objects_only(backend):
    conn = next(iter(backend.sites.values())).conn
    foreign_net = conn.networkDefineXML("<network><name>admins-lan</name><forward mode='bridge'/>"
                                        "<bridge name='br-admin'/></network>")
    foreign_dom = conn.defineXML("<domain type='qemu'><name>admins-vm</name><memory>65536</memory>"
                                 "<os><type arch='x86_64'>hvm</type></os></domain>")
    try:
        design = _design()
        backend.apply(backend.plan(design))
        results = backend.teardown(design.id)
        assert results and all(r.ok for r in results)
        names = {d.name() for d in conn.listAllDomains()}
        assert "admins-vm" in names and not any(n.startswith("vnb-") for n in names)
        nets = {n.name() for n in conn.listAllNetworks()}
        assert "admins-lan" in nets and "default" in nets and not any(n.startswith("vnb-") for n in nets)
    finally:
        foreign_dom.undefine()
        foreign_net.undefine()


def test_deployments_list_the_design(backend):
    design = _design()
    backend.apply(backend.plan(design))
    (dep,) = backend.deployments()
    assert dep.design_id == design.id and dep.objects == 9


def test_import_reads_networks_domains_and_vlans(backend):
    design = _design()
    backend.apply(backend.plan(design))
    topo = backend.import_design()
    switches = {s.name: s for s in topo.switches}
    assert switches["ovs0"].kind.value == "ovs" and switches["br0"].kind.value == "linux-bridge"
    assert {(p.name, p.vlan) for p in switches["ovs0"].portgroups} == {("VLAN10", 10), ("VLAN20", 20)}
    vms = {v.name: v for v in topo.vms}
    fw = vms["fw01"]
    assert [n.type for n in fw.vnics] == [NicType.E1000, NicType.VLANCE]
    assert fw.vnics[1].mac == "52:54:00:4b:00:02"
    assert fw.vnics[0].network == next(p.id for p in switches["ovs0"].portgroups if p.name == "VLAN10")
    assert vms["virtio-a"].vnics[0].network == switches["br0"].id
    assert "test" in vms                                     # the test driver's own domain comes along
    assert all(vm.id in topo.layout.places for vm in topo.vms)


def test_unsupported_names_reasons_before_touching_anything(backend):
    design = _design()
    design.vms[0].vnics[0].type = NicType.VMXNET2
    design.switches[0].kind = design.switches[0].kind.__class__("vss")
    with pytest.raises(Unsupported) as err:
        backend.plan(design)
    text = "; ".join(err.value.reasons)
    assert "vmxnet2" in text and "vss" in text
    conn = next(iter(backend.sites.values())).conn
    assert not any(d.name().startswith("vnb-") for d in conn.listAllDomains())
    nsx = load(ROOT / "resources" / "examples" / "nsx-dfw.vnet.yaml")
    assert any("NSX" in r for r in backend.unsupported(nsx))


def test_domain_xml_carries_model_mac_addresses_and_the_mark():
    design = _design()
    want = desired(design, {h.id: Boot("/k", "/i", "pc", "qemu", 192) for h in design.hosts})
    assert not want.reasons
    spec = want.wants["domain/vnb-496e5c-fw01"].spec
    xml = domain_xml(spec, Mark(design.id, "domain/vnb-496e5c-fw01", "abc", "building"), 8)
    root = ET.fromstring(xml)
    assert root.get("type") == "qemu" and root.findtext("os/kernel") == "/k"
    models = [i.find("model").get("type") for i in root.findall("devices/interface")]
    assert models == ["e1000", "pcnet"]
    assert [i.find("source").get("portgroup") for i in root.findall("devices/interface")] == ["VLAN10", "VLAN20"]
    cmdline = root.findtext("os/cmdline")
    assert "vnb.nic=52:54:00:4b:00:01,10.10.0.1/24" in cmdline and "vnb.fwd=routed" in cmdline
    assert len(root.findall("devices/channel")) == 8
    assert read_mark(xml) == Mark(design.id, "domain/vnb-496e5c-fw01", "abc", "building")
    assert NS in xml
    assert "drop" in spec["nft"] and spec["nft_family"] == "inet"


def test_a_router_guest_carries_its_static_routes_and_a_reject():
    design = _design()
    fw = next(vm for vm in design.vms if vm.name == "fw01")
    fw.forwarding.routes = [Route("10.99.0.0/16", "10.10.0.254"), Route("default", "10.20.0.254")]
    fw.forwarding.rules.append(Rule(Action.REJECT, "any", "10.99.0.0/16", Proto.TCP, 22))
    spec = desired(design, {h.id: Boot("/k", "/i") for h in design.hosts}).wants["domain/vnb-496e5c-fw01"].spec
    assert spec["routes"] == [["10.99.0.0/16", "10.10.0.254"], ["default", "10.20.0.254"]]
    assert "tcp dport 22 reject with tcp reset" in spec["nft"]
    plain = next(vm for vm in design.vms if vm.role == "vm")
    assert "routes" not in desired(design, {h.id: Boot("/k", "/i") for h in design.hosts}).wants[
        f"domain/vnb-496e5c-{plain.name}"].spec


def test_ovs_portgroups_carry_tag_trunk_and_native_vlan():
    design = _design()
    pg = design.switches[1].portgroups[0]
    pg.vlan, pg.native_vlan = "trunk 10-12", 30
    want = desired(design, {h.id: Boot("/k", "/i") for h in design.hosts})
    spec = want.wants["ovs/vnb-496e5c-ovs0"].spec
    root = ET.fromstring(network_xml("ovs", spec, Mark("d", "k", "m")))
    assert root.find("virtualport").get("type") == "openvswitch"
    trunk, access = root.findall("portgroup")
    assert trunk.find("vlan").get("trunk") == "yes"
    assert [(t.get("id"), t.get("nativeMode")) for t in trunk.findall("vlan/tag")] == \
        [("10", None), ("11", None), ("12", None), ("30", "untagged")]
    assert [t.get("id") for t in access.findall("vlan/tag")] == ["20"]


def test_macvtap_maps_to_a_direct_network_in_the_designs_mode():
    design = load(ROOT / "resources" / "examples" / "kvm-tap-macvtap.vnet.yaml")
    design.physical_hosts.clear()
    design.links = [link for link in design.links if link.id != "link-4"]
    want = desired(design, {h.id: Boot("/k", "/i") for h in design.hosts})
    assert not want.reasons
    spec = want.wants["macvtap/vnb-6f0f2d-macvtap-eth2"].spec
    root = ET.fromstring(network_xml("macvtap", spec, Mark("d", "k", "m")))
    assert root.find("forward").get("mode") == "vepa"
    assert root.find("forward/interface").get("dev") == spec["dev"]
    eth2 = want.wants[next(k for k, w in want.wants.items() if w.kind == "pnic" and w.spec["pnic"] == "eth2")]
    assert eth2.spec["wires"][0]["hairpin"] is True          # Gi0/3 reflects: VEPA guests meet through it
    eth1 = want.wants[next(k for k, w in want.wants.items() if w.kind == "pnic" and w.spec["pnic"] == "eth1")]
    assert eth1.spec["wires"][0]["hairpin"] is False


def test_settings_pick_a_uri_per_design_host():
    b = KvmBackend({"uri": "kvm01=test:///default; *=qemu+ssh://root@kvm02/system", "host_exec": "ssh root@kvm02"})
    assert b.config.uri("kvm01") == "test:///default"
    assert b.config.uri("kvm02") == "qemu+ssh://root@kvm02/system"
    assert b.config.host_exec("kvm02") == ["ssh", "root@kvm02"]
    assert KvmBackend({"uri": "qemu:///system?socket=/x/sock"}).config.uri("any") == "qemu:///system?socket=/x/sock"


def test_objects_with_vnetbench_names_but_no_mark_are_conflicts_left_alone(backend):
    """Issue 30, KVM 1: a hand-made domain and network that carry the names vnetbench would give are reported
    as conflicts that fail only their own change (and what needs them); deploy and teardown leave them."""
    conn = next(iter(backend.sites.values())).conn
    dom = conn.defineXML("<domain type='qemu'><name>vnb-496e5c-virtio-a</name><memory>65536</memory>"
                         "<os><type arch='x86_64'>hvm</type></os></domain>")
    net = conn.networkDefineXML("<network><name>vnb-496e5c-br0</name><forward mode='bridge'/>"
                                "<bridge name='br-hand'/></network>")
    try:
        design = _design()
        plan = backend.plan(design)
        conflicts = {c.key: c for c in plan.changes if c.data.get("conflict")}
        assert set(conflicts) == {"domain/vnb-496e5c-virtio-a", "bridge/vnb-496e5c-br0"}
        assert "vnetbench did not make" in conflicts["domain/vnb-496e5c-virtio-a"].description
        results = {r.change.key: r for r in backend.apply(plan)}
        mine = results["domain/vnb-496e5c-virtio-a"]
        assert not mine.ok and "conflict" in mine.error
        assert not results["domain/vnb-496e5c-virtio-b"].ok and "br0" in results["domain/vnb-496e5c-virtio-b"].error
        assert results["ovs/vnb-496e5c-ovs0"].ok and results["domain/vnb-496e5c-ovs-a"].ok
        assert read_mark(conn.lookupByName("vnb-496e5c-virtio-a").XMLDesc(0)) is None
        assert conn.networkLookupByName("vnb-496e5c-br0").bridgeName() == "br-hand"
        again = backend.plan(design)
        assert {c.key for c in again.changes} == {"domain/vnb-496e5c-virtio-a", "bridge/vnb-496e5c-br0",
                                                  "domain/vnb-496e5c-virtio-b", "domain/vnb-496e5c-e1000-a",
                                                  "domain/vnb-496e5c-e1000-b"}
        assert all(r.ok for r in backend.teardown(design.id))
        assert read_mark(conn.lookupByName("vnb-496e5c-virtio-a").XMLDesc(0)) is None
        assert conn.networkLookupByName("vnb-496e5c-br0").bridgeName() == "br-hand"
    finally:
        dom.undefine()
        net.undefine()


@pytest.mark.parametrize("settings", [{"acel": "qemu"}, {"accel": "fast"}, {"memory_mb": "lots"},
                                      {"pnics": "virtual"}, {"ovs_datapath": "dpdk"}, {"image": "vmlinuz"},
                                      {"host_exec": "ssh 'root@kvm02"}])
def test_settings_are_checked_up_front_exit_2(settings):
    """Issue 30, KVM 4: a misspelt key fell back to a default silently and bad values exited 3."""
    with pytest.raises(BadSetting) as err:
        KvmBackend({"uri": URI, **settings})
    if "acel" in settings:
        assert "acel (did you mean accel?)" in err.value.message and "machine, accel" in err.value.hint
    sets = [x for k, v in {"uri": URI, **settings}.items() for x in ("--set", f"{k}={v}")]
    proc = subprocess.run([sys.executable, "-m", "vnetbench", "deploy", str(EXAMPLE), "--backend", "kvm", *sets],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and next(iter(settings)) in proc.stderr


def test_measure_tells_a_kvm_user_to_deploy_not_to_run_lab_up(tmp_path):
    """Issue 30, KVM 8: measure's help and errors told KVM users to run `lab up`."""
    argv = [sys.executable, "-m", "vnetbench", "measure", str(EXAMPLE), "--from", "virtio-a", "--to", "virtio-b",
            "--test", "throughput", "--backend", "kvm", "--set", f"uri={URI}"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path)})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "vnetbench deploy" in proc.stderr and "--backend kvm" in proc.stderr and "lab up" not in proc.stderr
    help_text = subprocess.run([sys.executable, "-m", "vnetbench", "measure", "--help"], capture_output=True,
                               text=True, timeout=60).stdout
    assert "vnetbench deploy FILE --backend B" in " ".join(help_text.split())


def test_import_keeps_addresses_roles_and_the_host_name(backend):
    """Issue 30, KVM 7: an imported host had no addresses, roles or its design name, so `matrix` showed every
    pair unreachable. A guest vnetbench deployed names them in its kernel command line and its mark."""
    from vnetbench.predict import Engine

    design = _design()
    backend.apply(backend.plan(design))
    topo = backend.import_design()
    assert [h.name for h in topo.hosts] == ["kvm01"]
    vms = {v.name: v for v in topo.vms}
    assert vms["virtio-a"].vnics[0].ip == "10.10.0.11/24" and vms["virtio-a"].vnics[0].gateway == "10.10.0.1"
    assert [n.ip for n in vms["fw01"].vnics] == ["10.10.0.1/24", "10.20.0.1/24"]
    assert vms["fw01"].role.value == "firewall" and vms["fw01"].forwarding.mode.value == "routed"
    assert vms["virtio-a"].role.value == "vm"
    test_dom = next(iter(backend.sites.values())).conn.lookupByName("test")    # not ours: the agent's answer
    reported = test_dom.interfaceAddresses(libvirt.VIR_DOMAIN_INTERFACE_ADDRESSES_SRC_AGENT)
    assert vms["test"].vnics[0].ip == "{addr}/{prefix}".format(**next(iter(reported.values()))["addrs"][0])
    verdict = Engine(topo).predict(vms["virtio-a"].id, vms["virtio-b"].id, "icmp").verdict
    assert verdict.value == "in-host"


def test_the_first_deploy_shows_progress_while_it_builds_the_guest_image(tmp_path, monkeypatch):
    """Issue 30, KVM 8: the first deploy built the probe guest silently (about 24 s). The build itself is
    replaced here (it downloads Debian packages; the end-to-end tests build the real one)."""
    from vnetbench.backends import Plan, PlannedChange
    from vnetbench_kvm import guestimage

    def build(img, log):
        log("downloading linux-image-amd64 and 9 Debian packages")
        img.kernel.write_text("kernel")
        img.initrd.write_text("initrd")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(guestimage, "build", build)
    backend = KvmBackend({"uri": "qemu:///system?socket=/nonexistent/sock"})
    change = PlannedChange(Op.CREATE, "domain", "domain/vnb-000000-a", "guest a", "vm-a",
                           {"spec": {"name": "vnb-000000-a"}, "mark": "m", "deps": [],
                            "site": ["qemu:///system?socket=/nonexistent/sock", []]})
    seen = []
    results = backend.apply(Plan("kvm", "d", (change,)), lambda done, total, msg: seen.append(msg))
    assert "probe guest image: downloading linux-image-amd64 and 9 Debian packages" in seen
    assert guestimage.image().kernel.read_text() == "kernel"
    assert not results[0].ok                                   # no libvirtd there: the change itself fails


def test_the_kvm_examples_predict_with_qemu_figures_not_vsphere_ones():
    """Issue 30, KVM 6: kvm-tap-macvtap predicted "estimate 20900 Mbit/s", a vSphere figure, for QEMU guests."""
    from vnetbench.predict import predict

    for example in ("kvm-tap-macvtap", "kvm-nic-models"):
        design = load(ROOT / "resources" / "examples" / f"{example}.vnet.yaml")
        names = {vm.name: vm.id for vm in design.vms}
        src, dst = ("tap-a", "tap-b") if example == "kvm-tap-macvtap" else ("virtio-a", "virtio-b")
        estimate = predict(design, names[src], names[dst], proto="tcp").forward.estimate
        assert "kvm-tcg" in estimate.source and estimate.throughput_mbps < 1000, (example, estimate)
