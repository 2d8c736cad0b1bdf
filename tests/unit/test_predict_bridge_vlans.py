"""VLAN-filtering Linux bridges: each port's ``bridge vlan`` list, PVID and untagged flags decide the VLAN a
guest's frames join and what the uplink carries; the walk, the matrix and the lab's wiring agree."""

from __future__ import annotations

from builders import Design, HostKind, SwitchKind
from test_lab_domains import lab_domains, partition, predicted_domains

from vnetbench.model.objects import BridgeVlans
from vnetbench.model.validate import validate
from vnetbench.predict import Engine, Verdict
from vnetbench_local.desired import desired_lab


def filtering() -> Design:
    d = Design("vf")
    ps = d.pswitch("tor")
    k = d.host("kvm1", pnics=1, kind=HostKind.KVM)
    br = d.switch(k, "br0", ["kvm1.vmnic0"], kind=SwitchKind.LINUX_BRIDGE, vlan_filtering=True)
    br.uplinks[0].bridge_vlans = BridgeVlans("10,20", None, "")
    d.plug(ps, "kvm1.vmnic0", trunk=True, allowed="10,20")
    d.vm("a", k, br, "10.0.10.1/24", nic_type="virtio").vnics[0].bridge_vlans = BridgeVlans(10, 10, 10)
    d.vm("b", k, br, "10.0.10.2/24", nic_type="virtio").vnics[0].bridge_vlans = BridgeVlans(20, 20, 20)
    c = d.vm("c", k, br, "10.0.10.3/24", nic_type="virtio", guest_vlan=10)
    c.vnics[0].bridge_vlans = BridgeVlans("10,20", None, "")
    h = d.host("esx1", pnics=1)
    d.plug(ps, "esx1.vmnic0", trunk=True)
    d.vm("r", h, d.pg(d.switch(h, "vs0", ["esx1.vmnic0"]), "VLAN10", 10), "10.0.10.9/24")
    return d


def agree(d: Design) -> None:
    engine = Engine(d.t)
    for src, dst, verdict in engine.matrix().rows():
        assert engine.predict(src, dst).verdict is verdict, (src, dst)
    assert partition(lab_domains(desired_lab(d.t), d.t)) == partition(predicted_domains(d.t))


def test_ports_put_guests_in_their_vlans_and_the_uplink_carries_them():
    d = filtering()
    assert validate(d.t) == []
    assert d.verdict("a", "c") is Verdict.IN_HOST        # pvid 10 untagged, and a guest tagging 10 on a trunk port
    assert d.verdict("a", "b") is Verdict.UNREACHABLE    # VLAN 10 and VLAN 20 of one bridge
    assert d.verdict("a", "r") is Verdict.VIA_PHYSICAL and d.verdict("c", "r") is Verdict.VIA_PHYSICAL
    agree(d)


def test_an_uplink_port_without_the_vlan_keeps_it_in_the_host():
    d = filtering()
    d.t.switches[0].uplinks[0].bridge_vlans = BridgeVlans("20", None, "")
    p = d.predict("a", "r")
    assert p.verdict is Verdict.UNREACHABLE and "does not carry VLAN 10" in " ".join(p.reasons)
    agree(d)


def test_a_port_that_drops_or_mistags_the_guests_frames_is_named():
    d = filtering()
    d.t.vms[0].vnics[0].bridge_vlans = BridgeVlans(10, None, 10)          # no pvid: untagged frames dropped
    assert "drops its untagged frames" in " ".join(d.predict("a", "r").reasons)
    d.t.vms[0].vnics[0].bridge_vlans = BridgeVlans(10, 10, "")            # pvid 10, but sent back tagged
    assert "sends VLAN 10 back tagged" in " ".join(d.predict("a", "r").reasons)
    agree(d)
