"""Teaming policies, LAGs, private VLANs and VLAN-filtering bridges: the model, the file format and the
forwarding facts (``model.forwarding``) and verdict rules (``predict.decide``) they feed."""

from __future__ import annotations

import ipaddress
import itertools

import jsonschema
import numpy as np
import pytest
import yaml
from builders import Design

from vnetbench import resources_dir
from vnetbench.model import dumps, load, loads
from vnetbench.model.fileformat import to_data
from vnetbench.model.forwarding import (
    Fabric, UplinkChooser, bridge_egress, bridge_ingress, ip_hash_index, pvlan_entry, pvlan_label, pvlan_may_talk,
    pvlan_wire_vlans, teaming_policy,
)
from vnetbench.model.objects import (
    BridgeVlans, FailureDetection, LacpMode, Lag, LagHash, LoadBalancing, PortChannel, Pvlan, PvlanType, SwitchKind,
    Teaming,
)
from vnetbench.model.schema import json_schema
from vnetbench.predict import decide


def _ip(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def teamed(policy: Teaming | None = None, uplinks: int = 2) -> tuple[Design, object, object]:
    """One ESXi host whose vSwitch0 teams ``uplinks`` pNICs, each to its own trunk port, with VLAN 10 and a VM."""
    d = Design()
    ps = d.pswitch("sw1")
    h = d.host("esx1", pnics=uplinks)
    sw = d.switch(h, "vSwitch0", [f"esx1.vmnic{i}" for i in range(uplinks)], teaming=policy)
    for i in range(uplinks):
        d.plug(ps, f"esx1.vmnic{i}", trunk=True)
    pg = d.pg(sw, "VLAN10", 10)
    d.vm("web", h, pg, "10.0.0.1/24")
    return d, sw, pg


# --- the file format ------------------------------------------------------------------------------------------


NEW_KEYS = {"teaming", "lags", "pvlans", "vlan_filtering", "bridge_vlans", "stack", "port_channels", "pvlan", "uplink"}


def _keys(data: object) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in _keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in _keys(v)}
    return set()


@pytest.mark.parametrize("path", sorted((resources_dir() / "examples").glob("*.vnet.yaml")), ids=lambda p: p.name)
def test_an_older_file_loads_and_saves_without_the_new_fields(path):
    """Old files load unchanged: a design that does not use the new constructs saves none of their keys."""
    topology = load(path)
    assert loads(dumps(topology)) == topology
    assert not NEW_KEYS & _keys(to_data(topology)) - _keys(yaml.safe_load(path.read_text()))


def test_the_new_constructs_round_trip_and_fit_the_schema():
    d, sw, pg = teamed(Teaming(LoadBalancing.IP_HASH, FailureDetection.BEACON, notify_switches=False, failback=False))
    sw.kind = SwitchKind.VDS
    sw.lags.append(Lag("lag1", "lag1", ["esx1.vmnic0", "esx1.vmnic1"], LacpMode.PASSIVE, LagHash.SRC_DST_IP))
    sw.pvlans += [Pvlan(100, 100, PvlanType.PROMISCUOUS), Pvlan(100, 101, PvlanType.ISOLATED),
                  Pvlan(100, 102, PvlanType.COMMUNITY)]
    pg.pvlan = 101
    pg.teaming = Teaming(LoadBalancing.LOAD_BASED, lag="lag1")
    d.t.vms[0].vnics[0].uplink = "esx1.vmnic1"
    ps = d.t.physical_switches[0]
    ps.stack, ps.pvlans = "stack1", [Pvlan(100, 101)]
    ps.port_channels.append(PortChannel("po1", "Po1", [p.id for p in ps.ports], LacpMode.ACTIVE))
    br = d.switch(d.t.hosts[0], "br0", kind=SwitchKind.LINUX_BRIDGE, vlan_filtering=True)
    d.t.vms[0].vnics[0].bridge_vlans = BridgeVlans("10,20", 10, "10")
    assert br.vlan_filtering
    text = dumps(d.t)
    for key in ("load_balancing: ip-hash", "failure_detection: beacon-probing", "notify_switches: false",
                "lag: lag1", "mode: passive", "hash: src-dst-ip", "pvlan: 101", "type: community", "stack: stack1",
                "port_channels:", "vlan_filtering: true", "uplink: esx1.vmnic1", "pvid: 10", "untagged: '10'"):
        assert key in text
    again = loads(text)
    assert again == d.t and dumps(again) == text
    assert list(jsonschema.Draft202012Validator(json_schema()).iter_errors(yaml.safe_load(text))) == []


def test_a_misspelt_policy_is_refused_with_the_place_and_the_fix():
    d, _, _ = teamed(Teaming())
    text = dumps(d.t).replace("load_balancing: port-id", "load_balancing: ip-hsh")
    text = text if "ip-hsh" in text else text.replace("teaming: {}", "teaming:\n    load_balancing: ip-hsh")
    with pytest.raises(Exception) as err:
        loads(text)
    assert "switches[0].teaming.load_balancing" in str(err.value) and "ip-hash" in str(err.value)


# --- teaming facts ----------------------------------------------------------------------------------------------


def test_ip_hash_follows_the_last_octets_xor_modulo_the_uplinks():
    """vSphere Networking, "Route Based on IP Hash": last octet of source XOR last octet of destination, modulo
    the number of uplinks in the team (KB 2006129); the higher octets do not matter, and a reply hashes alike."""
    assert ip_hash_index(_ip("10.0.0.1"), _ip("10.0.0.2"), 2) == 1      # 1 ^ 2 = 3, 3 % 2
    assert ip_hash_index(_ip("10.0.0.1"), _ip("10.0.0.3"), 2) == 0      # 1 ^ 3 = 2
    assert ip_hash_index(_ip("10.0.0.1"), _ip("10.9.8.3"), 2) == 0      # only the last octets count
    assert ip_hash_index(_ip("192.168.1.10"), _ip("192.168.1.20"), 4) == (10 ^ 20) % 4
    for a, b in itertools.product(range(0, 256, 17), repeat=2):
        assert ip_hash_index(a, b, 3) == ip_hash_index(b, a, 3)


def test_without_a_policy_a_switch_keeps_the_explicit_failover_order():
    d, sw, pg = teamed(None)
    assert teaming_policy(sw, pg).load_balancing is LoadBalancing.FAILOVER_ORDER
    vm = d.t.vms[0]
    choice = Fabric(d.t).vnic_uplinks(vm, vm.vnics[0])
    assert choice.chooser is UplinkChooser.ORDER and [u.pnic for u in choice.uplinks] == ["esx1.vmnic0"]
    assert not choice.depends_on_run_time


def test_originating_port_id_leaves_the_uplink_to_the_run_time_unless_pinned():
    d, sw, pg = teamed(Teaming(LoadBalancing.PORT_ID))
    vm = d.t.vms[0]
    choice = Fabric(d.t).vnic_uplinks(vm, vm.vnics[0])
    assert choice.depends_on_run_time and [u.pnic for u in choice.uplinks] == ["esx1.vmnic0", "esx1.vmnic1"]
    assert choice.for_pair(1, 2) is None
    vm.vnics[0].uplink = "esx1.vmnic1"
    pinned = Fabric(d.t).vnic_uplinks(vm, vm.vnics[0])
    assert pinned.chooser is UplinkChooser.PIN and [u.pnic for u in pinned.uplinks] == ["esx1.vmnic1"]
    assert pinned.for_pair(None, None).pnic == "esx1.vmnic1"


def test_a_portgroup_override_and_a_failed_uplink_narrow_the_choice():
    d, sw, pg = teamed(Teaming(LoadBalancing.MAC_HASH), uplinks=3)
    pg.teaming = Teaming(LoadBalancing.IP_HASH)
    d.t.hosts[0].pnics[2].up = False
    vm = d.t.vms[0]
    choice = Fabric(d.t).vnic_uplinks(vm, vm.vnics[0])
    assert choice.chooser is UplinkChooser.ADDRESS_HASH and len(choice.uplinks) == 2
    assert any("vmnic2 is down" in p for p in choice.problems)
    assert choice.for_pair(_ip("10.0.0.1"), _ip("10.0.0.2")).pnic == "esx1.vmnic1"
    assert choice.for_pair(_ip("10.0.0.1"), _ip("10.0.0.3")).pnic == "esx1.vmnic0"
    d.t.hosts[0].pnics[1].up = False
    assert Fabric(d.t).vnic_uplinks(vm, vm.vnics[0]).chooser is UplinkChooser.ORDER  # one uplink left: no choice


def test_a_lag_takes_its_members_and_its_hash_decides_who_chooses():
    d, sw, pg = teamed(Teaming(LoadBalancing.PORT_ID, lag="lag1"), uplinks=3)
    sw.kind, sw.members, sw.host = SwitchKind.VDS, ["esx1"], None
    sw.lags.append(Lag("lag1", "lag1", ["esx1.vmnic1", "esx1.vmnic2"]))
    vm = d.t.vms[0]
    choice = Fabric(d.t).vnic_uplinks(vm, vm.vnics[0])
    assert [u.pnic for u in choice.uplinks] == ["esx1.vmnic1", "esx1.vmnic2"] and choice.depends_on_run_time
    sw.lags[0].hash = LagHash.SRC_DST_IP
    choice = Fabric(d.t).vnic_uplinks(vm, vm.vnics[0])
    assert choice.chooser is UplinkChooser.ADDRESS_HASH and choice.lag is sw.lags[0]


# --- private VLANs ------------------------------------------------------------------------------------------------

PROM, ISO, COM_A, COM_B = (Pvlan(100, 100, PvlanType.PROMISCUOUS), Pvlan(100, 101, PvlanType.ISOLATED),
                           Pvlan(100, 102, PvlanType.COMMUNITY), Pvlan(100, 103, PvlanType.COMMUNITY))


@pytest.mark.parametrize("a, b, talk", [
    (PROM, PROM, True), (PROM, ISO, True), (PROM, COM_A, True), (ISO, ISO, False), (ISO, COM_A, False),
    (COM_A, COM_A, True), (COM_A, COM_B, False), (None, ISO, True), (ISO, Pvlan(200, 200, PvlanType.PROMISCUOUS), False),
])
def test_who_may_talk_in_a_private_vlan(a, b, talk):
    assert pvlan_may_talk(a, b) is talk and pvlan_may_talk(b, a) is talk
    assert bool(decide.pvlan_allows(pvlan_label(a), pvlan_label(b))) is talk   # the decision core agrees


def test_the_decision_core_rule_takes_blocks_of_labels():
    entries = [None, PROM, ISO, COM_A, COM_B]
    labels = np.array([pvlan_label(e) for e in entries])
    block = decide.pvlan_allows(labels[:, None], labels[None, :])
    assert block.tolist() == [[pvlan_may_talk(a, b) for b in entries] for a in entries]
    carried = np.ones((5, 5), dtype=bool)
    # an endpoint outside the private VLAN (None) takes the role of the VLAN it meets a port on: never isolated
    outsider_iso = [[(a is None) != (b is None) and PvlanType.ISOLATED in (getattr(a, "type", None),
                                                                           getattr(b, "type", None))
                     for b in entries] for a in entries]
    assert decide.pvlan_l2(np.full((5, 5), decide.PHYSICAL), False, labels[:, None], labels[None, :],
                           carried).tolist() == \
        [[decide.PHYSICAL if pvlan_may_talk(a, b) and not outsider_iso[i][j] else decide.NO_L2
          for j, b in enumerate(entries)] for i, a in enumerate(entries)]
    # in one host the vDS joins them; across hosts only where the VLANs are carried (else nothing)
    same = decide.pvlan_l2(np.full((5, 5), decide.PHYSICAL), True, labels[:, None], labels[None, :], carried)
    assert same[1].tolist() == [decide.PHYSICAL] + [decide.IN_HOST] * 4   # outside a private VLAN: the code stands
    cut = decide.pvlan_l2(np.full((5, 5), decide.PHYSICAL), False, labels[:, None], labels[None, :], ~carried)
    assert cut[1].tolist() == [decide.PHYSICAL] + [decide.NO_L2] * 4


def test_private_vlan_ports_send_on_their_secondary_and_hear_the_primary():
    assert pvlan_wire_vlans(ISO) == (101, 100) and pvlan_wire_vlans(PROM) == (100, 100)
    assert pvlan_entry([PROM, ISO, COM_A], 102) is COM_A and pvlan_entry([PROM], 7) is None


# --- VLAN-filtering Linux bridges ---------------------------------------------------------------------------------


def test_a_vlan_filtering_bridge_port_takes_and_sends_as_bridge_vlan_sets_it():
    trunk = BridgeVlans("10,20-30", 10, "10")
    assert bridge_ingress(trunk, None) == 10 and bridge_ingress(trunk, 25) == 25 and bridge_ingress(trunk, 40) is None
    assert bridge_egress(trunk, 10) == (True, None) and bridge_egress(trunk, 20) == (True, 20)
    assert bridge_egress(trunk, 40) == (False, None)
    no_pvid = BridgeVlans("20", None, "")
    assert bridge_ingress(no_pvid, None) is None
    assert bridge_ingress(None, None) == 1 and bridge_egress(None, 1) == (True, None)   # the kernel default


# --- the verdict over several possible uplinks ------------------------------------------------------------------


def test_a_pair_is_never_fine_when_one_possible_uplink_cuts_it_off():
    worst, depends = decide.across_uplinks([decide.PHYS, decide.UNREACH])
    assert int(worst) == decide.UNREACH and bool(depends)
    worst, depends = decide.across_uplinks([decide.PHYS, decide.PHYS])
    assert int(worst) == decide.PHYS and not bool(depends)
    block = np.array([[decide.PHYS, decide.HOST], [decide.UNREACH, decide.HOST]])
    worst, depends = decide.across_uplinks(block, axis=0)
    assert worst.tolist() == [decide.UNREACH, decide.HOST] and depends.tolist() == [True, False]
