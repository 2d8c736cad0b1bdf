"""OVS patches: the OpenStack layout (VMs tagged on br-int, patched to br-phys, which holds eth0) reaches the
physical network in every VLAN, because a patch port without a tag trunks every VLAN (ovs-vswitchd.conf.db(5))."""

from __future__ import annotations

from builders import Design, HostKind, SwitchKind

from vnetbench.model import Document
from vnetbench.model.objects import Link
from vnetbench.predict import Engine, Verdict


def openstack(vlans: tuple[int, ...] = (10, 20)) -> Design:
    """kvm1: br-int (a portgroup per VLAN, no uplink) patched to br-phys (eth0 on a trunk of tor); a server
    on tor in each VLAN."""
    d = Design()
    tor = d.pswitch("tor")
    k = d.host("kvm1", pnics=1, kind=HostKind.KVM)
    brint = d.switch(k, "br-int", kind=SwitchKind.OVS)
    brphys = d.switch(k, "br-phys", ["kvm1.vmnic0"], kind=SwitchKind.OVS)
    d.plug(tor, "kvm1.vmnic0", trunk=True, allowed="10,20")
    d.t.links.append(Link("patch-int-phys", brint.id, brphys.id))
    for v in vlans:
        d.vm(f"vm{v}", k, d.pg(brint, f"net{v}", v), f"10.0.{v}.5/24")
        d.phost(f"srv{v}", d.port(tor, f"srv{v}", vlan=v), f"10.0.{v}.9/24")
    return d


def test_a_vm_on_br_int_reaches_the_physical_network_through_the_patch_to_br_phys():
    d = openstack()
    engine = Engine(d.t)
    for v in (10, 20):
        for a, b in ((f"vm{v}", f"srv{v}"), (f"srv{v}", f"vm{v}")):
            p = engine.predict(a, b)
            assert p.verdict is Verdict.VIA_PHYSICAL, (a, b, p.reasons)
            assert "no uplink" not in " ".join(p.reasons)
    assert engine.predict("vm10", "srv20").verdict is Verdict.UNREACHABLE    # the VLANs stay apart
    for src, dst, verdict in engine.matrix().rows():
        assert verdict is engine.predict(src, dst).verdict, (src, dst)


def test_a_vlan_the_uplink_port_does_not_allow_stops_at_the_port_not_at_br_int():
    d = openstack(vlans=(10, 30))
    p = d.predict("vm30", "srv30")
    assert p.verdict is Verdict.UNREACHABLE
    assert "does not allow VLAN 30" in " ".join(p.reasons), p.reasons


def test_a_linux_bridge_patched_to_ovs_joins_only_the_untagged_segment():
    d = Design()
    tor = d.pswitch("tor")
    k = d.host("kvm1", pnics=1, kind=HostKind.KVM)
    br = d.switch(k, "br0", kind=SwitchKind.LINUX_BRIDGE)
    ovs = d.switch(k, "br-phys", ["kvm1.vmnic0"], kind=SwitchKind.OVS)
    d.plug(tor, "kvm1.vmnic0", vlan=10)
    d.t.links.append(Link("veth", br.id, ovs.id))
    d.vm("vm1", k, br, "10.0.10.5/24")
    d.phost("srv", d.port(tor, "srv", vlan=10), "10.0.10.9/24")
    assert d.verdict("vm1", "srv") is Verdict.VIA_PHYSICAL


def test_a_portgroup_moved_to_a_new_vlan_on_a_patched_bridge_is_recompiled():
    """The incremental engine treats a new OVS VLAN segment as a leaf, unless the bridge is patched."""
    d = openstack()
    engine = Engine(d.t)
    engine.matrix()
    doc = Document(d.t)
    doc.subscribe(engine.changed)
    pg = d.t.switches[0].portgroups[0]
    doc.set(pg, "vlan", 30)
    p = engine.predict("vm10", "srv10")
    assert p.verdict is Verdict.UNREACHABLE
    assert "does not allow VLAN 30" in " ".join(p.reasons), p.reasons
    doc.set(pg, "vlan", 20)
    doc.set(d.t.vms[0].vnics[0], "ip", "10.0.20.6/24")
    assert engine.predict("vm10", "srv20").verdict is Verdict.VIA_PHYSICAL
    fresh = Engine(d.t)
    for src, dst, verdict in engine.matrix().rows():
        assert verdict is fresh.predict(src, dst).verdict, (src, dst)
