"""The local lab wires pins and private VLANs, says plainly what of teaming it cannot emulate (a run-time or
per-pair uplink choice, LACP), and refuses such a design; a VLAN-filtering bridge it emulates as a bridge per
VLAN."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import Lag, Link, PhysicalHost, load
from vnetbench.model.objects import HostNic
from vnetbench_local.desired import desired_lab
from vnetbench_local.names import ifname, pvlan_bridge_name

EXAMPLES = resources_dir() / "examples"


def _nft(lab, ns_part: str) -> str:
    return "".join(r.spec["text"] for r in lab.resources.values() if r.kind == "nft" and ns_part in r.spec["ns"])


def test_an_unpinned_run_time_or_ip_hash_choice_is_refused_with_its_reason():
    reasons = desired_lab(load(EXAMPLES / "esx-teaming-half-lost.vnet.yaml")).reasons
    assert reasons == [f"{vm}/eth0 is not pinned, and vSwitch0 balances by port-id over 2 working uplinks, which the "
                       "local lab cannot emulate (it wires one uplink per vNIC); pin the vNIC to an uplink, or use "
                       "the explicit failover order" for vm in ("app01", "app02")]
    assert any("balances by ip-hash" in r for r in desired_lab(load(EXAMPLES / "esx-ip-hash-port-channel.vnet.yaml")).reasons)


def test_pinned_vnics_leave_through_their_own_uplink():
    d = load(EXAMPLES / "esx-teaming-half-lost.vnet.yaml")
    vms = {v.name: v for v in d.vms}
    vms["app01"].vnics[0].uplink = "pnic-esx01-vmnic1"     # its port drops VLAN 10: it leaves the host nowhere
    vms["app02"].vnics[0].uplink = "pnic-esx01-vmnic0"
    lab = desired_lab(d)
    assert lab.reasons == []
    bridges = [r for r in lab.resources.values() if r.kind == "bridge" and r.object_id == "sw-esx01-vswitch0"]
    assert len(bridges) == 1                  # one vSwitch VLAN, one bridge, whatever its vNICs' uplinks
    vmnic0 = ifname("u", "pnic-esx01-vmnic0", 10)
    app01 = ifname("n", "nic-app01-eth0")
    rules = _nft(lab, "host_esx01")
    assert f'iifname {{ "{app01}" }} oifname {{ "{vmnic0}" }} drop' in rules
    assert f'iifname {{ "{vmnic0}" }} oifname {{ "{app01}" }} drop' in rules
    uplink = next(r.spec["a"] for r in lab.resources.values() if r.kind == "veth" and r.spec["a"]["name"] == vmnic0)
    assert uplink["learning"] is False        # remote MACs flood, and the rules choose the uplink


def test_a_lag_is_refused():
    d = load(EXAMPLES / "esx-teaming-half-lost.vnet.yaml")
    d.switches[0].lags.append(Lag("lag1", "lag1", ["pnic-esx01-vmnic0", "pnic-esx01-vmnic1"]))
    assert any("has LACP LAGs, which the local lab cannot emulate (it has no bonding driver)" in r
               for r in desired_lab(d).reasons)


def test_private_vlans_are_one_bridge_per_host_with_the_roles_as_rules():
    lab = desired_lab(load(EXAMPLES / "esx-private-vlans.vnet.yaml"))
    assert lab.reasons == []
    bridges = [r.spec for r in lab.resources.values() if r.kind == "bridge" and r.object_id == "sw-dvs-dmz"]
    assert {(b["ns"].rsplit("-", 1)[1], b["name"]) for b in bridges} == {
        (h, pvlan_bridge_name("sw-dvs-dmz", 200)) for h in ("host_esx01", "host_esx02")}
    web01, web02, backup = (ifname("n", f"nic-{vm}-eth0") for vm in ("web01", "web02", "backup01"))
    rules = _nft(lab, "host_esx01")
    # the isolated web servers reach the promiscuous backup server and their own VLAN 201 out, nothing else
    isolated = next(line.strip() for line in rules.splitlines() if web01 in line.split("oifname")[0])
    sources = ", ".join(f'"{p}"' for p in sorted((web01, web02)))
    assert isolated == (f'iifname {{ {sources} }} oifname != {{ "{backup}", "{ifname("u", "pnic-esx01-vmnic0", 201)}" '
                        '} drop comment "private VLAN 200: isolated 201"'), isolated
    # esx02's port does not carry VLAN 201: esx02 has no uplink on it, and its isolated port talks to no one there
    assert ifname("u", "pnic-esx02-vmnic0", 201) not in _nft(lab, "host_esx02")


def test_an_endpoint_outside_a_private_vlan_on_its_isolated_vlan_is_wired_as_the_prediction_answers():
    """The lab gives frames arriving on an isolated VLAN that VLAN's role, as a vDS does and as the prediction
    now answers (decide.pvlan_outsider_allowed): such a design is no longer refused."""
    d = load(EXAMPLES / "esx-private-vlans.vnet.yaml")
    port = d.physical_switches[0].ports[0]       # a trunk carrying 200-203 (esx01's)
    d.physical_hosts.append(PhysicalHost("ph-scan", "scanner", [HostNic("ph-scan-eth0", "eth0", "10.20.0.99/24",
                                                                        vlan=201)]))
    d.links.append(Link("link-scan", "ph-scan-eth0", port.id))
    assert desired_lab(d).reasons == []


def test_an_endpoint_on_a_physical_switchs_own_private_vlan_map_is_refused():
    """The lab's physical switches carry every VLAN plainly; a physical switch's own map gives its ports roles in
    the prediction, so a design with an endpoint on such a port is refused (the KVM backend likewise)."""
    from vnetbench_kvm.desired import Boot, desired

    d = load(EXAMPLES / "esx-private-vlans.vnet.yaml")
    tor = d.physical_switches[0]
    assert desired_lab(d).reasons == []
    d.physical_hosts.append(PhysicalHost("ph-fw", "fw", [HostNic("ph-fw-eth0", "eth0", "10.20.0.1/24", vlan=200)]))
    d.links.append(Link("link-fw", "ph-fw-eth0", tor.ports[0].id))
    assert desired_lab(d).reasons == []                   # no map on tor: VLAN 200 is a plain VLAN there
    tor.pvlans = [e for sw in d.switches for e in sw.pvlans]
    said = "physical host fw NIC eth0 is on the promiscuous primary VLAN 200 of private VLAN 200 of tor-a's own map"
    assert any(r.startswith(said) for r in desired_lab(d).reasons), desired_lab(d).reasons
    assert any(r.startswith(said) for r in desired(d, {h.id: Boot("/k", "/i") for h in d.hosts}).reasons)


def test_a_pinned_private_vlan_port_is_refused():
    d = load(EXAMPLES / "esx-private-vlans.vnet.yaml")
    d.vms[0].vnics[0].uplink = "pnic-esx01-vmnic0"
    assert any("backup01/eth0 is a private VLAN port pinned to an uplink" in r for r in desired_lab(d).reasons)


def test_a_vlan_filtering_bridge_is_wired_as_a_bridge_per_vlan():
    lab = desired_lab(load(EXAMPLES / "kvm-vlan-filtering-bridge.vnet.yaml"))
    assert lab.reasons == []
    bridges = [r.spec["name"] for r in lab.resources.values() if r.kind == "bridge" and r.object_id == "sw-kvm01-br0"]
    assert len(bridges) == 2     # VLAN 10 and VLAN 20 of br0
