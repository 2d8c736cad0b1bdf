"""Deeper prediction: overlay transport, MTU, trunk speed, SR-IOV and DirectPath, typed answers."""

from __future__ import annotations

import json

from builders import Design, ForwardMode, HostKind, SwitchKind, Uplink

from vnetbench.model import NicType
from vnetbench.model.objects import Encapsulation
from vnetbench.predict import Prediction, Verdict
from vnetbench.predict.result import HopKind


def nsx(transport_vlan: int | None = 50, same_switch: bool = True) -> Design:
    """web1 on esx1 and web2 on esx2, one NSX segment; tunnel endpoints in ``transport_vlan`` on vmnic1."""
    d = Design()
    hosts = [d.host(f"esx{i}") for i in (1, 2)]
    sws = [d.pswitch("sw1")] + ([] if same_switch else [d.pswitch("sw2")])
    for i, h in enumerate(hosts):
        d.plug(sws[min(i, len(sws) - 1)], f"{h.name}.vmnic1", trunk=True, allowed="50,60")
    ls = d.switch(None, "ls-web", kind=SwitchKind.NSX_SEGMENT, members=hosts, encapsulation=Encapsulation.VXLAN)
    ls.uplinks = [Uplink(f"{h.name}.vmnic1", vlan=transport_vlan) for h in hosts]
    d.vm("web1", hosts[0], ls, "172.16.1.11/24")
    d.vm("web2", hosts[1], ls, "172.16.1.12/24")
    return d


# --- overlay transport ---------------------------------------------------------------------------------------


def test_a_multi_host_segment_crosses_the_physical_network_in_its_transport_vlan():
    p = nsx().predict("web1", "web2")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert "tagged transport VLAN 50" in " ".join(p.reasons)


def test_a_transport_vlan_the_port_does_not_carry_cuts_the_overlay_and_names_the_port():
    d = nsx(transport_vlan=70)
    p = d.predict("web1", "web2")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("port p1 of sw1 does not allow VLAN 70" in r for r in p.reasons), p.reasons


def test_removing_the_transport_vlan_from_one_hosts_port_cuts_only_that_host():
    d = nsx()
    d.t.physical_switches[0].ports[1].allowed = "60"
    p = d.predict("web1", "web2")
    assert p.verdict is Verdict.UNREACHABLE
    assert any("port p2 of sw1 does not allow VLAN 50" in r for r in p.reasons), p.reasons


def test_unconnected_physical_switches_cut_the_overlay():
    p = nsx(same_switch=False).predict("web1", "web2")
    assert p.verdict is Verdict.UNREACHABLE
    reason = " ".join(p.reasons)
    assert "tunnel endpoints cannot reach each other" in reason and "no cable joins sw1 and sw2" in reason


def test_a_trunk_that_drops_the_transport_vlan_is_named():
    d = nsx(same_switch=False)
    a = d.port(d.t.physical_switches[0], "up", trunk=True, allowed="60")
    b = d.port(d.t.physical_switches[1], "up", trunk=True, allowed="50,60")
    d.cable(a.id, b.id)
    p = d.predict("web1", "web2")
    assert p.verdict is Verdict.UNREACHABLE
    assert "port up of sw1 does not allow VLAN 50" in " ".join(p.reasons)
    a.allowed = "50,60"
    assert d.verdict("web1", "web2") is Verdict.VIA_PHYSICAL


# --- MTU ------------------------------------------------------------------------------------------------------


def test_the_overlay_takes_its_encapsulation_from_the_transport_mtu():
    d = nsx()
    for vm in d.t.vms:
        vm.vnics[0].mtu = 9000
    d.t.switches[0].mtu = 9000
    for h in d.t.hosts:
        h.pnics[1].mtu = 1600
    assert d.predict("web1", "web2", "icmp").mtu[0] == 1450          # the switch ports still take 1500
    for port in d.t.physical_switches[0].ports:
        port.mtu = 1600
    assert d.predict("web1", "web2", "icmp").mtu[0] == 1550
    d.t.switches[0].encapsulation = Encapsulation.GENEVE
    mtu, where = d.predict("web1", "web2", "icmp").mtu
    assert mtu == 1546 and "Geneve adds 54" in where and "esx1/vmnic1" in where


def test_the_smallest_mtu_on_the_way_is_the_limit_and_named():
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"], mtu=9000)
    port = d.plug(d.pswitch("sw1"), "esx1.vmnic0", trunk=True)
    a, b = d.vm("a", h, d.pg(sw, "v10", 10), "10.0.0.1/24"), d.vm("b", h, d.pg(sw, "v10b", 10), "10.0.0.2/24")
    for vm in (a, b):
        vm.vnics[0].mtu = 9000
    assert d.predict("a", "b", "icmp").mtu == (9000, "a/eth0 (MTU 9000)")   # in the host: the vSwitch decides
    b.vnics[0].mtu = 1500
    assert d.predict("a", "b", "icmp").mtu == (1500, "b/eth0 (MTU 1500)")
    assert port.mtu == 1500  # the port is not on this in-host path


def test_a_blocked_or_unreachable_flow_has_no_largest_packet():
    d = nsx(transport_vlan=70)
    p = d.predict("web1", "web2")
    assert p.mtu == (None, "") and p.forward.mtu is None


# --- trunk speed ----------------------------------------------------------------------------------------------


def test_a_slow_trunk_between_switches_is_the_bottleneck():
    d = Design()
    hosts = [d.host(f"esx{i}", speed=10000) for i in (1, 2)]
    sws = [d.pswitch("sw1"), d.pswitch("sw2")]
    for h, ps in zip(hosts, sws):
        d.plug(ps, f"{h.name}.vmnic0", trunk=True)
        sw = d.switch(h, "vSwitch0", [f"{h.name}.vmnic0"])
        d.vm(f"vm{h.name[-1]}", h, d.pg(sw, "v10", 10), f"10.0.0.{h.name[-1]}/24")
    a, b = d.port(sws[0], "t", trunk=True), d.port(sws[1], "t", trunk=True)
    d.cable(a.id, b.id)
    d.t.links[-1].speed_mbps = 1000
    est = d.predict("vm1", "vm2").forward.estimate
    assert est.bottleneck == "trunk t/t" and est.throughput_mbps == 920


# --- SR-IOV and DirectPath ------------------------------------------------------------------------------------


def sriov() -> Design:
    """Two VFs of esx1/vmnic0 in VLAN 10, a vSwitch VM uplinked through the same pNIC, a DirectPath guest."""
    d = Design()
    h = d.host("esx1", pnics=3)
    ps = d.pswitch("sw1")
    d.plug(ps, "esx1.vmnic0", trunk=True)
    d.plug(ps, "esx1.vmnic2", trunk=True)
    sw = d.switch(h, "vSwitch0", ["esx1.vmnic0"])
    pg = d.pg(sw, "v10", 10)
    for name, ip in (("vf1", "10.0.0.1/24"), ("vf2", "10.0.0.2/24")):
        d.vm(name, h, pg, ip, nic_type=NicType.SRIOV).vnics[0].physical_function = "esx1.vmnic0"
    d.vm("plain", h, pg, "10.0.0.3/24")
    dp = d.vm("dp", h, pg, "10.0.0.4/24", nic_type=NicType.DIRECTPATH, guest_vlan=10)
    dp.vnics[0].network, dp.vnics[0].physical_function = None, "esx1.vmnic2"
    return d


def test_vf_to_vf_on_one_pnic_stays_in_the_nics_embedded_switch():
    p = sriov().predict("vf1", "vf2")
    assert p.verdict is Verdict.IN_HOST
    assert [h.kind for h in p.forward.hops].count(HopKind.EMBEDDED_SWITCH) == 1
    assert not any(h.kind == HopKind.SWITCH for h in p.forward.hops)
    assert "embedded switch" in " ".join(p.reasons)


def test_a_vf_meets_the_vswitch_on_its_own_pnic_inside_the_nic():
    p = sriov().predict("vf1", "plain")
    assert p.verdict is Verdict.IN_HOST and not p.forward.pnics


def test_a_directpath_guest_leaves_through_the_pnic_it_owns():
    p = sriov().predict("dp", "plain")
    assert p.verdict is Verdict.VIA_PHYSICAL and p.forward.pnics[0] == "esx1.vmnic2"
    assert p.forward.estimate.bottleneck.startswith("dp/eth0 (directpath on vmnic2)")


def test_a_bridged_firewall_on_a_vf_passes_nothing_whatever_the_portgroup_allows():
    d = sriov()
    h = d.t.hosts[0]
    pg10 = d.t.switches[0].portgroups[0]
    pg20 = d.pg(d.t.switches[0], "v20", 20, promiscuous=True)
    pg10.security.promiscuous = True
    fw = d.fw("fw", h, [(pg10, None), (pg20, None)], mode=ForwardMode.BRIDGED)
    fw.vnics[0].type, fw.vnics[0].physical_function = NicType.SRIOV, "esx1.vmnic0"
    d.vm("far", h, pg20, "10.0.0.9/24")
    p = d.predict("plain", "far")
    assert p.verdict is Verdict.BLOCKED and "bypasses the virtual switch and its security policy" in p.reasons[-1]


# --- typed answers ---------------------------------------------------------------------------------------------


def test_a_prediction_round_trips_through_a_dict_and_json():
    p = nsx().predict("web1", "web2", "tcp", 443)
    data = json.loads(json.dumps(p.to_dict()))
    again = Prediction.from_dict(data)
    assert again == p
    assert (again.flow.proto, again.flow.port, again.flow.src_name) == ("tcp", 443, "web1")
    assert isinstance(again.forward.hops[0].kind, HopKind)


def test_the_printed_form_is_what_the_cli_prints(tmp_path, capsys):
    from vnetbench.cli.main import main
    from vnetbench.model import save
    d = nsx()
    path = tmp_path / "d.vnet.yaml"
    save(d.t, path)
    assert main(["predict", str(path), "--from", "web1", "--to", "web2", "--proto", "tcp", "--port", "443"]) == 0
    printed = capsys.readouterr().out
    assert printed == str(d.predict("web1", "web2", "tcp", 443)) + "\n"
    assert printed.startswith("web1 -> web2 tcp/443: via-physical")
    assert "largest packet: 1450 bytes; one byte more is dropped at the NSX overlay of ls-web" in printed


# --- a raw AF_PACKET attachment (seed 001) ---------------------------------------------------------------------


def raw(hairpin: bool) -> Design:
    d = Design()
    k = d.host("kvm", pnics=1, kind=HostKind.KVM)
    sw = d.switch(k, "eth0-raw", ["kvm.vmnic0"], kind=SwitchKind.RAW)
    d.plug(d.pswitch("tor"), "kvm.vmnic0", vlan=10, hairpin=hairpin)
    d.vm("g1", k, sw, "10.0.0.1/24", nic_type="virtio")
    d.vm("g2", k, sw, "10.0.0.2/24", nic_type="virtio")
    return d


def test_raw_socket_guests_meet_only_through_a_hairpin_port():
    p = raw(hairpin=False).predict("g1", "g2")
    assert p.verdict is Verdict.UNREACHABLE
    assert "no hairpin" in " ".join(p.reasons)
    p = raw(hairpin=True).predict("g1", "g2")
    assert p.verdict is Verdict.VIA_PHYSICAL
    assert "raw AF_PACKET socket on vmnic0 sends every frame out of it" in " ".join(p.reasons)


def test_a_raw_socket_opens_one_host_interface_of_a_kvm_host():
    from vnetbench.model.validate import validate
    d = raw(hairpin=True)
    d.t.switches[0].uplinks.append(Uplink("kvm.vmnic0"))
    assert any("raw socket on 2 pNICs" in p.message for p in validate(d.t))


# --- the host OS's own address on a hosted hypervisor (seed 003) -------------------------------------------------


def hosted_nat(host_address: bool) -> Design:
    d = Design()
    pc = d.host("pc", pnics=1, kind=HostKind.HOSTED)
    ps = d.pswitch("lan")
    d.plug(ps, "pc.vmnic0", vlan=1)
    nat = d.switch(pc, "vmnet8", kind=SwitchKind.HOSTED_NAT, nat_gateway="192.168.8.2")
    d.vm("guest", pc, nat, "192.168.8.10/24", "192.168.8.2")
    d.router("gw", [(d.port(ps, "gw", vlan=1), "10.0.0.1/24", None), (d.port(ps, "wan", vlan=2), "10.9.0.1/24", None)])
    d.phost("far", d.port(ps, "far", vlan=2), "10.9.0.5/24", "10.9.0.1")
    if host_address:
        pc.pnics[0].ip, pc.pnics[0].gateway = "10.0.0.20/24", "10.0.0.1"
    return d


def test_the_nat_service_sends_from_the_host_os_address_through_its_gateway():
    p = hosted_nat(host_address=True).predict("guest", "far", "icmp")
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL and p.forward.routed_by == ("vmnet8 NAT", "gw")
    without = hosted_nat(host_address=False).predict("guest", "far", "icmp")   # guessed: a router on the LAN
    assert without.verdict is Verdict.ROUTED_VIA_PHYSICAL and without.forward.routed_by == ("vmnet8 NAT", "gw")


def test_a_gateway_that_is_the_host_os_address_does_not_route_and_a_nat_without_it_warns():
    from vnetbench.model.validate import validate
    d = hosted_nat(host_address=True)
    d.t.physical_hosts[0].nics[0].gateway = None
    d.phost("lan-pc", d.port(d.t.physical_switches[0], "pc2", vlan=1), "10.0.0.30/24", "10.0.0.20")
    p = d.predict("lan-pc", "far")
    assert "the gateway 10.0.0.20 is pc's own address on vmnic0; the host does not route" in " ".join(p.reasons)
    warning = [p for p in validate(hosted_nat(host_address=False).t) if "borrows a free one" in p.message]
    assert len(warning) == 1 and "set ip (and gateway) on pc/vmnic0" in warning[0].hint
