"""The fabric as admins build it, on a real libvirtd + QEMU (TCG) + userspace Open vSwitch (the fixtures of
conftest.py): ``resources/examples/kvm-bonded-vlan-filtering-bridge.vnet.yaml`` deploys a VLAN-filtering
bridge (guests on PVID 10, PVID 20 and a trunk port tagging VLAN 10 itself) whose two uplinks, balancing by IP
hash into a static port channel, become an OVS bond. Every ordered pair of guests and emulated physical hosts
is pinged and must agree with the prediction; the bonds exist on OVS in the mode the policy maps to, with both
members enabled; import gives back the filtering bridge with each guest port's bridge VLANs; teardown leaves
the host exactly as before. With ``pnics=real`` (veths standing in for the
host's pNICs, no guest) an LACP port channel is a ``balance-tcp`` bond that negotiates with a partner bond.

The guests boot once for the module (TCG is slow) and the tests share them, in file order."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from kvm_deploy import deployed_design, disagreements, ping_every_pair
from kvmhost import listing

from vnetbench.model import BridgeVlans, LacpMode, SwitchKind, load
from vnetbench.predict import Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-bonded-vlan-filtering-bridge.vnet.yaml"


@pytest.fixture(scope="module")
def deployed(kvm_host):
    yield from deployed_design(kvm_host, load(EXAMPLE))


def test_the_bonded_filtering_bridge_deploys_and_plans_nothing_again(deployed):
    backend, design, results = deployed
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    assert {r.change.kind for r in results} >= {"ovs", "bond", "pnic", "domain"}
    assert backend.plan(design).empty


def test_each_segment_leaves_through_a_balance_slb_bond_of_both_uplinks(deployed, kvm_host):
    backend, design, _ = deployed
    bonds = [w for w in backend.desired(design).wants.values() if w.kind == "bond"]
    assert sorted(w.spec["tag"] for w in bonds) == [10, 20]
    ports = json.loads(kvm_host.run(["ovs-vsctl", "-f", "json", "--columns=name,bond_mode,lacp,tag,interfaces",
                                     "list", "port"]).stdout)
    by_name = {row[0]: row for row in ports["data"]}
    for w in bonds:
        name, mode, lacp, tag, interfaces = by_name[w.spec["name"]]
        assert (mode, lacp, tag) == ("balance-slb", "off", w.spec["tag"])
        assert interfaces[0] == "set" and len(interfaces[1]) == 2
        shown = kvm_host.run(["ovs-appctl", "bond/show", w.spec["name"]]).stdout
        assert "bond_mode: balance-slb" in shown
        for member in w.spec["members"]:            # both members carry traffic (a bond, not a standby)
            assert f"member {member}: enabled" in shown, shown


def test_every_pair_agrees_with_the_prediction(deployed):
    backend, design, _ = deployed
    ids = [vm.id for vm in design.vms] + [ph.id for ph in design.physical_hosts]
    seen = ping_every_pair(backend, design, ids)
    assert len(seen) == 20
    assert disagreements(seen) == {}
    # the design has every kind of answer: inside one VLAN of br0, through the bond, and VLANs kept apart
    assert {v for v, _ in seen.values()} == {Verdict.IN_HOST, Verdict.VIA_PHYSICAL, Verdict.UNREACHABLE}
    assert seen[("vm-web01", "phy-backup01")] == (Verdict.VIA_PHYSICAL, True)
    assert seen[("vm-web01", "vm-db01")] == (Verdict.UNREACHABLE, False)


def _port_vlans(vlans: BridgeVlans | None) -> tuple:
    vlans = vlans or BridgeVlans()
    return vlans.vlans.ranges, vlans.pvid, vlans.untagged.ranges


def test_import_gives_back_the_filtering_bridge_and_each_vnics_bridge_vlans(deployed):
    """What the deploy built on OVS comes back as the design's VLAN-filtering Linux bridge, each guest port with
    the VLANs, PVID and untagged VLANs the design gave it (read from libvirt's <vlan>)."""
    backend, design, _ = deployed
    topo = backend.import_design()
    [br0] = [sw for sw in topo.switches if sw.name == "br0"]
    assert (br0.kind, br0.vlan_filtering, br0.portgroups) == (SwitchKind.LINUX_BRIDGE, True, [])
    imported = {vm.name: vm for vm in topo.vms}
    for vm in design.vms:
        [nic] = imported[vm.name].vnics
        assert (nic.name, nic.network) == (vm.vnics[0].name, br0.id)
        assert _port_vlans(nic.bridge_vlans) == _port_vlans(vm.vnics[0].bridge_vlans), vm.name


def test_teardown_leaves_the_host_as_before(deployed, kvm_host):
    backend, design, _ = deployed
    assert all(r.ok for r in backend.teardown(design.id))
    assert listing(kvm_host) == kvm_host.before


def _lacp_uplinks():
    """The example's bridge and port channel, now LACP, with the host's own pNICs (pnics=real) and no guest."""
    design = load(EXAMPLE)
    design.id, design.vms, design.physical_hosts = "kvm-real-lacp-bond", [], []
    design.links = [link for link in design.links if link.a.startswith("pnic-")]
    design.physical_switches[0].port_channels[0].mode = LacpMode.ACTIVE
    return design


def _lacp_status(kvm_host, bond: str) -> str:
    """``ovs-appctl bond/show`` once the bond's LACP has negotiated and both members are enabled (or what it and
    ``lacp/show`` say after 60 s)."""
    for _ in range(120):
        shown = kvm_host.run(["ovs-appctl", "bond/show", bond]).stdout
        if "lacp_status: negotiated" in shown and shown.count(": enabled") == 2:
            return shown
        time.sleep(0.5)
    return shown + kvm_host.run(["ovs-appctl", "lacp/show"]).stdout


def test_with_real_pnics_an_lacp_port_channel_is_a_balance_tcp_bond_that_negotiates_with_its_partner(kvm_host):
    """pnics=real: eno1 and eno2 (veths here) become one bond with LACP; their other ends, in a bond of a second
    OVS bridge standing in for tor1's Po1, answer LACP, so the bond negotiates and both members carry traffic.
    The bond trunks the bridge VLANs of br0's uplink ports; teardown lets go of the pNICs."""
    from vnetbench_kvm import KvmBackend

    for n in ("eno1", "eno2"):
        kvm_host.run(["ip", "link", "add", n, "type", "veth", "peer", "name", f"{n}-tor1"])
        kvm_host.run(["ip", "link", "set", f"{n}-tor1", "up"])
    vsctl = ["ovs-vsctl", "--timeout=30"]
    kvm_host.run([*vsctl, "add-br", "tor1-po1", "--", "set", "bridge", "tor1-po1", "datapath_type=netdev"])
    kvm_host.run([*vsctl, "add-bond", "tor1-po1", "po1", "eno1-tor1", "eno2-tor1", "lacp=active",
                  "bond_mode=balance-tcp", "other_config:lacp-time=fast"])     # "lacp rate fast": PDUs each second
    design = _lacp_uplinks()
    backend = KvmBackend(kvm_host.settings(accel="qemu", pnics="real"))
    backend.connect()
    try:
        results = backend.apply(backend.plan(design))
        assert results and all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
        [bond] = [w for w in backend.desired(design).wants.values() if w.kind == "bond"]
        shown = _lacp_status(kvm_host, bond.spec["name"])
        assert "bond_mode: balance-tcp" in shown and "lacp_status: negotiated" in shown, shown
        assert "member eno1: enabled" in shown and "member eno2: enabled" in shown, shown
        port = json.loads(kvm_host.run([*vsctl, "-f", "json", "--columns=trunks,vlan_mode,lacp", "list", "port",
                                        bond.spec["name"]]).stdout)["data"][0]
        assert port == [["set", [10, 20]], "trunk", "active"]
        assert backend.plan(design).empty
        assert all(r.ok for r in backend.teardown(design.id))
        for n in ("eno1", "eno2"):      # the host's pNICs stay, out of every OVS bridge
            assert kvm_host.run(["ip", "link", "show", n], check=False).returncode == 0
            assert kvm_host.run([*vsctl, "port-to-br", n], check=False).returncode != 0
    finally:
        backend.close()
        kvm_host.run([*vsctl, "--if-exists", "del-br", "tor1-po1"])
        for n in ("eno1", "eno2"):
            kvm_host.run(["ip", "link", "del", n], check=False)
    assert listing(kvm_host) == kvm_host.before
