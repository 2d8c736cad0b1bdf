"""The lints of teaming, link aggregation and failure detection (``model.teaming_checks``), each able to fail:
every test shows the problem reported on a broken design and gone on the fixed one."""

from __future__ import annotations

from builders import Design
from test_predict_teaming import half_lost

from vnetbench.model.objects import FailureDetection, Lag, LoadBalancing, PortChannel, Teaming
from vnetbench.model.validate import validate


def said(d: Design, words: str) -> list:
    return [p for p in validate(d.t) if words in p.message]


def test_active_uplinks_whose_ports_carry_different_vlans():
    d = half_lost()
    [p] = said(d, "do not carry the same VLANs")
    assert p.path == "switches[0].uplinks" and "esx1/vmnic1 (port p1 of sw2)" in p.message and "VLAN 10" in p.message
    assert "allow VLAN 10" in p.hint
    assert not said(half_lost(both_carry=True), "do not carry the same VLANs")


def ip_hash_pair(channel: bool, policy: LoadBalancing = LoadBalancing.IP_HASH, stack: tuple = (None, None),
                 split: bool = False) -> Design:
    d = Design("iphash")
    pss = [d.pswitch("sw1"), d.pswitch("sw2")]
    for ps, name in zip(pss, stack):
        ps.stack = name
    h = d.host("esx1")
    d.switch(h, "vSwitch0", ["esx1.vmnic0", "esx1.vmnic1"], teaming=Teaming(policy))
    ports = [d.plug(pss[1] if split and i else pss[0], f"esx1.vmnic{i}", trunk=True) for i in range(2)]
    if channel:
        pss[0].port_channels.append(PortChannel("po1", "Po1", [p.id for p in ports]))
    return d


def test_ip_hash_needs_a_port_channel_and_a_port_channel_needs_ip_hash():
    [p] = said(ip_hash_pair(channel=False), "balances by IP hash")
    assert p.severity == "error" and p.path == "switches[0].teaming.load_balancing" and "port channel" in p.hint
    assert not said(ip_hash_pair(channel=True), "balances by IP hash")
    [p] = said(ip_hash_pair(channel=True, policy=LoadBalancing.PORT_ID), "MAC flapping")
    assert "Po1" in p.message and "ip-hash" in p.hint
    assert not said(ip_hash_pair(channel=False, policy=LoadBalancing.PORT_ID), "MAC flapping")


def test_a_channel_across_switches_needs_a_stack_or_mlag():
    [p] = said(ip_hash_pair(channel=True, split=True), "form no stack or MLAG")
    assert p.path == "physical_switches[0].port_channels[0]" and "sw1, sw2" in p.message
    assert not said(ip_hash_pair(channel=True, split=True, stack=("core", "core")), "form no stack")
    assert said(ip_hash_pair(channel=True, split=True, stack=("core", "other")), "form no stack")


def test_a_vds_lag_across_switches_needs_a_stack_too():
    d = ip_hash_pair(channel=False, split=True)
    d.t.switches[0].lags.append(Lag("lag1", "lag1", ["esx1.vmnic0", "esx1.vmnic1"]))
    [p] = said(d, "LAG lag1 of vSwitch0")
    assert p.path == "switches[0].lags[0]"


def test_beacon_probing_with_fewer_than_three_uplinks():
    d = half_lost(Teaming(LoadBalancing.PORT_ID, FailureDetection.BEACON), both_carry=True)
    [p] = said(d, "probes with beacons over 2 uplink")
    assert p.path == "switches[0].teaming.failure_detection"
    d.t.hosts[0].pnics.append(type(d.t.hosts[0].pnics[0])("esx1.vmnic2", "vmnic2"))
    d.t.switches[0].uplinks.append(type(d.t.switches[0].uplinks[0])("esx1.vmnic2"))
    d.plug(d.t.physical_switches[0], "esx1.vmnic2", trunk=True)
    assert not said(d, "probes with beacons")


def test_link_status_misses_a_failure_upstream():
    d = half_lost(both_carry=True)          # vmnic1's switch sw2 reaches sw1 by one cable
    found = said(d, "link status only")
    assert found and all("upstream failure" in p.message for p in found)
    assert any("lands on sw2" in p.message for p in found)
    d.t.switches[0].teaming.failure_detection = FailureDetection.BEACON
    assert not said(d, "link status only")
