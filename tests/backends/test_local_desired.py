"""The design -> lab translation, without touching the kernel."""

from __future__ import annotations

import copy
import re

import pytest
from lab_designs import campus, firewalled, macvtap

from vnetbench.model import Dlr, DlrInterface, ForwardMode, Link, MacvtapMode, PortMode, load
from vnetbench_local.desired import desired_lab
from vnetbench.backends.planning import design_tag
from vnetbench_local.names import IFNAMSIZ

EXAMPLE = "resources/examples/esx-four-cases.vnet.yaml"


def kinds(lab, kind):
    return [r for r in lab.resources.values() if r.kind == kind]


def veth_of(lab, ns_part, name):
    return next(r for r in kinds(lab, "veth") if ns_part in r.spec["a"]["ns"] and r.spec["a"]["name"] == name)


def test_every_name_is_marked_and_fits_the_kernel():
    d = campus(vms_per_host=3, hosts=3)
    lab = desired_lab(d)
    assert lab.reasons == []
    tag = design_tag(d.id)
    for r in lab.resources.values():
        spec = r.spec
        for ns in [spec.get("ns"), *(spec[e]["ns"] for e in "ab" if e in spec)]:
            if ns:
                assert ns.startswith(f"vnb{tag}-")
        for name in [spec.get("name"), spec.get("ifb"), *(spec[e]["name"] for e in "ab" if e in spec)]:
            if name:
                assert len(name) <= IFNAMSIZ and re.fullmatch(r"[A-Za-z0-9_.-]+", name)


def test_one_namespace_per_vm_router_switch_and_host():
    d = campus(vms_per_host=2, hosts=2)
    lab = desired_lab(d)
    ns = {r.spec["ns"] for r in kinds(lab, "netns")}
    assert len(ns) == 4 + 1 + 1 + 2          # VMs, the L3 switch's router, the physical switch, two hypervisors
    routers = [r for r in kinds(lab, "netns") if r.spec["forward"]]
    assert [r.object_id for r in routers] == ["core-l3"]


def test_segments_follow_switch_and_vlan():
    lab = desired_lab(load(EXAMPLE))
    bridges = {r.description.split("(")[-1].rstrip(")") for r in kinds(lab, "bridge")}
    # two portgroups with VLAN 300 on vSwitch0 are one segment; vSwitch1 VLAN 300 is another
    assert {"vSwitch0 VLAN 300", "vSwitch0 VLAN 301", "vSwitch1 VLAN 300"} <= bridges
    web01, app01 = veth_of(lab, "web01", "eth0"), veth_of(lab, "app01", "eth0")
    bak01 = veth_of(lab, "bak01", "eth0")
    assert web01.spec["b"]["master"] == app01.spec["b"]["master"] != bak01.spec["b"]["master"]
    assert web01.spec["a"]["addrs"] == ["10.30.0.11/24"] and web01.spec["a"]["mac"] == "00:50:56:00:00:01"


def test_uplinks_one_veth_per_carried_vlan_and_one_shaper_per_pnic():
    lab = desired_lab(load(EXAMPLE))
    uplinks = [r for r in kinds(lab, "veth") if r.spec["a"]["name"].startswith("u")]
    assert sorted(r.description.split("(")[1] for r in uplinks) == [
        "vmnic0 VLAN 300 to Gi1/0/1)", "vmnic0 VLAN 301 to Gi1/0/1)", "vmnic1 VLAN 300 to Gi1/0/2)"]
    shapers = kinds(lab, "shaper")
    out = [s for s in shapers if s.spec["ifb"].startswith("i")]
    assert len(out) == 2 and sorted(len(s.spec["members"]) for s in out) == [1, 2]
    assert all(s.spec["rate_mbit"] == 1000 for s in shapers)


def test_vlan_not_allowed_on_the_trunk_is_not_carried():
    d = load(EXAMPLE)
    d.physical_switches[0].ports[0].allowed = "300"
    lab = desired_lab(d)
    assert not any("VLAN 301 to" in r.description for r in kinds(lab, "veth"))


def test_names_are_stable_when_the_design_grows():
    d = campus()
    before = desired_lab(d).resources
    bigger = copy.deepcopy(d)
    bigger.vms.append(bigger.vms[0].__class__("new", "new", host="h0", vnics=[]))
    after = desired_lab(bigger).resources
    assert set(before) <= set(after)
    assert all(after[k].spec == before[k].spec for k in before)


def test_vepa_guests_are_isolated_and_only_hairpin_reflects():
    lab = desired_lab(macvtap(MacvtapMode.VEPA, hairpin=True))
    guests = [r for r in kinds(lab, "veth") if r.object_id in ("g1", "g2")]
    assert all(g.spec["b"]["isolated"] and not g.spec["b"]["learning"] for g in guests)
    up = next(r for r in kinds(lab, "veth") if r.spec["a"]["name"].startswith("u"))
    assert up.spec["b"]["hairpin"] and not up.spec["a"]["learning"]
    no_hp = desired_lab(macvtap(MacvtapMode.VEPA, hairpin=False))
    up = next(r for r in kinds(no_hp, "veth") if r.spec["a"]["name"].startswith("u"))
    assert not up.spec["b"]["hairpin"]
    bridge_mode = desired_lab(macvtap(MacvtapMode.BRIDGE, hairpin=False))
    assert not any(r.spec["b"]["isolated"] for r in kinds(bridge_mode, "veth") if r.object_id in ("g1", "g2"))
    private = desired_lab(macvtap(MacvtapMode.PRIVATE, hairpin=True))
    [rule] = [r for r in kinds(private, "nft")]
    assert "ether saddr" in rule.spec["text"] and "drop" in rule.spec["text"]


def test_routed_firewall_rules_become_an_inet_table():
    lab = desired_lab(firewalled(ForwardMode.ROUTED))
    [table] = kinds(lab, "nft")
    text = table.spec["text"]
    assert table.spec["family"] == "inet" and "policy drop" in text
    assert text.index("ct state established,related accept") < text.index("meta l4proto { icmp, ipv6-icmp } accept")
    assert "ip daddr 10.2.0.3 tcp dport 5201 accept" in text       # the rule names VM b by id
    assert [r.spec["forward"] for r in kinds(lab, "netns") if r.object_id == "fw"] == [True]


def test_bridged_firewall_bridges_its_legs_and_honours_the_security_policy():
    lab = desired_lab(firewalled(ForwardMode.BRIDGED))
    legs = [r for r in kinds(lab, "veth") if r.object_id == "fw"]
    assert [leg.spec["a"]["master"] for leg in legs] == ["fw0", "fw0"]
    [table] = kinds(lab, "nft")
    assert table.spec["family"] == "bridge" and "ether type arp accept" in table.spec["text"]
    blocked = desired_lab(firewalled(ForwardMode.BRIDGED, promiscuous=False))
    [table] = kinds(blocked, "nft")
    assert "policy drop" in table.spec["text"] and "accept" not in table.spec["text"].replace("policy drop", "")


def test_what_the_lab_cannot_build_is_refused_with_reasons():
    d = campus()
    d.links.append(Link("patch", "h0-vs0", "h1-vs0"))
    d.nsx.dlrs.append(Dlr("dlr", "dlr1", [DlrInterface("i", "i", "nowhere", "10.10.0.1/16")]))
    reasons = desired_lab(d).reasons
    assert any("link patch" in r and "patched" in r for r in reasons)
    assert any("DLR dlr1 interface i" in r for r in reasons)
    d = macvtap(MacvtapMode.PASSTHROUGH, hairpin=False)
    assert any("passthrough" in r for r in desired_lab(d).reasons)
    d = firewalled()
    d.vms[0].vnics[0].ip = "10.1.0.2"
    assert any("vNIC a/eth0 ip" in r and "address/prefix" in r for r in desired_lab(d).reasons)


def test_a_layer2_loop_is_refused():
    d = campus(hosts=1)
    d.physical_switches[0].ports.append(d.physical_switches[0].ports[0].__class__(
        "core-x", "Gi1/1", PortMode.TRUNK, allowed="10,20"))
    d.physical_switches[0].ports.append(d.physical_switches[0].ports[0].__class__(
        "core-y", "Gi1/2", PortMode.TRUNK, allowed="10,20"))
    d.links.append(Link("loop", "core-x", "core-y"))
    assert any("loop" in r for r in desired_lab(d).reasons)


@pytest.mark.parametrize("bad", ["nonsense", "10.0.0.0/33"])
def test_a_rule_naming_nothing_is_refused(bad):
    d = firewalled()
    d.vms[2].forwarding.rules[1].dst = bad
    assert any("rule 2" in r and "dst" in r for r in desired_lab(d).reasons)


def test_nsx_segments_tunnel_between_hosts_and_the_dlr_routes_locally():
    lab = desired_lab(load("resources/examples/nsx-dfw.vnet.yaml"))
    assert lab.reasons == []
    vx = kinds(lab, "vxlan")
    assert sorted((r.spec["vni"], r.spec["local"], tuple(r.spec["remotes"])) for r in vx) == [
        (5001, "100.64.0.1", ("100.64.0.2",)), (5001, "100.64.0.2", ("100.64.0.1",)),
        (5002, "100.64.0.1", ("100.64.0.2",)), (5002, "100.64.0.2", ("100.64.0.1",))]
    uplinks = [r for r in kinds(lab, "veth") if r.spec["a"]["name"].startswith("u")]
    assert len(uplinks) == 2 and all(r.spec["mtu"] == 1600 for r in uplinks)     # VXLAN needs the room
    dlrs = [r for r in kinds(lab, "netns") if r.object_id == "dlr-01"]
    assert len(dlrs) == 2 and all(r.spec["forward"] for r in dlrs)                 # one instance per host
    [neigh] = [r for r in kinds(lab, "routes") if "esx01" in r.key and "dlr" in r.key]
    assert len(neigh.spec["neigh"]) == 5                                           # every guest, no ARP needed
    tables = [r.spec["text"] for r in kinds(lab, "nft")]
    assert all('arp daddr ip { 172.16.10.1, 172.16.20.1 } iifname != "n*" iifname != "d*" drop' in t
               for t in tables)
    # each guest's MAC points at its own host's tunnel endpoint (no flooding to every endpoint)
    macs = {(r.spec["vni"], r.spec["local"]): dict(r.spec["macs"]) for r in vx}
    assert all(macs[key] and set(macs[key].values()) == {"100.64.0.2" if key[1] == "100.64.0.1" else "100.64.0.1"}
               for key in macs)
    assert all(r.spec.get("arp_ignore") for r in kinds(lab, "netns") if "-h-" in r.spec["ns"])
    assert all("ip daddr 172.16.20.50 drop" in t for t in tables)                  # the DFW quarantine


def test_hosted_nat_and_patches_are_built():
    from lab_designs import hosted_nat, kvm_patch
    lab = desired_lab(hosted_nat())
    [nat] = [r for r in kinds(lab, "nft") if r.spec["family"] == "ip"]
    assert 'oifname "outside" masquerade' in nat.spec["text"]
    outside = next(r for r in kinds(lab, "veth") if r.spec["a"]["name"] == "outside")
    assert outside.spec["a"]["addrs"] == ["192.168.1.254/24"]                     # borrowed on the LAN
    lab = desired_lab(kvm_patch())
    [patch] = [r for r in kinds(lab, "veth") if r.object_id == "patch"]
    assert patch.spec["a"]["master"] != patch.spec["b"]["master"]
