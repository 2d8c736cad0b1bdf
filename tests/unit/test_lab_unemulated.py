"""The local lab says plainly what of teaming, LAGs and private VLANs it cannot emulate, and refuses such a
design; a VLAN-filtering bridge it emulates as a bridge per VLAN."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench_local.desired import desired_lab

EXAMPLES = resources_dir() / "examples"


def test_run_time_teaming_and_pins_are_refused_with_their_reasons():
    reasons = desired_lab(load(EXAMPLES / "esx-teaming-half-lost.vnet.yaml")).reasons
    assert any("vSwitch0 balances by port-id, which the local lab cannot emulate" in r for r in reasons)
    assert any("app03/eth0 is pinned to an uplink" in r for r in reasons)
    assert any("balances by ip-hash" in r for r in desired_lab(load(EXAMPLES / "esx-ip-hash-port-channel.vnet.yaml")).reasons)


def test_a_vlan_filtering_bridge_is_wired_as_a_bridge_per_vlan():
    lab = desired_lab(load(EXAMPLES / "kvm-vlan-filtering-bridge.vnet.yaml"))
    assert lab.reasons == []
    bridges = [r.spec["name"] for r in lab.resources.values() if r.kind == "bridge" and r.object_id == "sw-kvm01-br0"]
    assert len(bridges) == 2     # VLAN 10 and VLAN 20 of br0
