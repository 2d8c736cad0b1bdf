"""Prediction under teaming policies: where the platform chooses the uplink at run time the answer is the worst
over the possible uplinks and says so, per uplink; a pin or the failover order answers for its uplink. The walk
and the matrix give the same verdicts (both read the segment labels the decision core judges)."""

from __future__ import annotations

from builders import Design

from vnetbench.model.objects import LoadBalancing, Teaming
from vnetbench.predict import Engine, Verdict
from vnetbench.predict.result import Prediction


def half_lost(policy: Teaming | None = Teaming(LoadBalancing.PORT_ID), both_carry: bool = False) -> Design:
    """The classic ticket: esx1's two active uplinks go to two switches, and only sw1 carries VLAN 10 (unless
    ``both_carry``); esx2 sits on sw1."""
    d = Design("half")
    sw1, sw2 = d.pswitch("sw1"), d.pswitch("sw2")
    h1, h2 = d.host("esx1"), d.host("esx2")
    s1 = d.switch(h1, "vSwitch0", ["esx1.vmnic0", "esx1.vmnic1"], teaming=policy)
    d.plug(sw1, "esx1.vmnic0", trunk=True)
    d.plug(sw2, "esx1.vmnic1", trunk=True, allowed="all" if both_carry else "20")
    d.cable(d.port(sw1, "up", trunk=True).id, d.port(sw2, "up", trunk=True).id)
    s2 = d.switch(h2, "vSwitch0", ["esx2.vmnic0"])
    d.plug(sw1, "esx2.vmnic0", trunk=True)
    pg1, pg2 = d.pg(s1, "VLAN10", 10), d.pg(s2, "VLAN10", 10)
    d.vm("a", h1, pg1, "10.0.0.1/24")
    d.vm("b", h1, pg1, "10.0.0.2/24")
    d.vm("c", h2, pg2, "10.0.0.3/24")
    return d


def agree(d: Design) -> None:
    engine = Engine(d.t)
    for src, dst, verdict in engine.matrix().rows():
        assert engine.predict(src, dst).verdict is verdict, (src, dst)


def test_a_run_time_choice_between_a_good_and_a_cut_off_uplink_is_never_shown_as_fine():
    d = half_lost()
    p = d.predict("a", "c")
    assert p.verdict is Verdict.UNREACHABLE and p.depends_on_uplink
    outcome = {o.uplink: o for o in p.uplinks if o.vnic == "a/eth0"}
    assert outcome["esx1/vmnic0"].verdict is Verdict.VIA_PHYSICAL
    assert outcome["esx1/vmnic1"].verdict is Verdict.UNREACHABLE
    assert "port p1 of sw2 does not allow VLAN 10" in outcome["esx1/vmnic1"].reason     # names the port
    said = " ".join(p.reasons)
    assert "depends on the uplink chosen" in said and "pin the vNIC" in said
    assert d.verdict("a", "b") is Verdict.IN_HOST       # inside the host the uplink does not matter
    assert d.verdict("c", "a") is Verdict.UNREACHABLE   # nor is the reply direction fine
    agree(d)


def test_the_explained_answer_keeps_its_uplinks_through_json():
    p = half_lost().predict("a", "c")
    again = Prediction.from_dict(p.to_dict())
    assert again.uplinks == p.uplinks and again.depends_on_uplink


def test_a_pin_answers_for_its_uplink():
    d = half_lost()
    a = d.t.vms[0].vnics[0]
    a.uplink = "esx1.vmnic0"
    assert d.verdict("a", "c") is Verdict.VIA_PHYSICAL and not d.predict("a", "c").uplinks
    assert d.verdict("a", "b") is Verdict.IN_HOST       # pinned or not, the vSwitch joins its ports
    a.uplink = "esx1.vmnic1"
    p = d.predict("a", "c")
    assert p.verdict is Verdict.UNREACHABLE and "does not allow VLAN 10" in " ".join(p.reasons)
    agree(d)


def test_without_a_policy_the_failover_order_answers_as_before():
    d = half_lost(policy=None)
    assert d.verdict("a", "c") is Verdict.VIA_PHYSICAL and not d.predict("a", "c").uplinks
    agree(d)
    d = half_lost(policy=Teaming(LoadBalancing.FAILOVER_ORDER))
    assert d.verdict("a", "c") is Verdict.VIA_PHYSICAL


def test_uplinks_that_carry_the_same_vlans_give_one_answer():
    d = half_lost(both_carry=True)
    p = d.predict("a", "c")
    assert p.verdict is Verdict.VIA_PHYSICAL and not p.depends_on_uplink
    assert {o.verdict for o in p.uplinks} == {Verdict.VIA_PHYSICAL}
    agree(d)


def test_ip_hash_names_the_uplink_the_pair_hashes_to():
    d = half_lost(Teaming(LoadBalancing.IP_HASH))
    p = d.predict("a", "c")       # last octets 1 ^ 3 = 2, modulo 2 uplinks: the first, vmnic0
    assert "IP hash sends this pair from a/eth0 through esx1/vmnic0" in " ".join(p.reasons)
    assert p.verdict is Verdict.UNREACHABLE    # one label per vNIC: answered as the worst over its uplinks
    agree(d)


def test_a_portgroup_override_decides_for_its_vnics():
    d = half_lost(policy=None)
    d.t.switches[0].portgroups[0].teaming = Teaming(LoadBalancing.MAC_HASH)
    assert d.predict("a", "c").depends_on_uplink
    agree(d)


def test_two_uplinks_behind_ports_without_hairpin_reach_only_what_is_behind_neither():
    """Both uplinks reach one switch; another vSwitch of the host sits behind vmnic0's port. The run-time choice
    may put the VM on vmnic0, whose port cannot send the frame back: the pair is cut off in the worst case."""
    d = Design("uturn")
    ps = d.pswitch("sw1")
    h = d.host("esx1", pnics=3)
    team = d.switch(h, "vs0", ["esx1.vmnic0", "esx1.vmnic1"], teaming=Teaming(LoadBalancing.PORT_ID))
    other = d.switch(h, "vs1", ["esx1.vmnic2"])
    for i in range(3):
        d.plug(ps, f"esx1.vmnic{i}", trunk=True)
    d.vm("a", h, d.pg(team, "VLAN10", 10), "10.0.0.1/24")
    d.vm("b", h, d.pg(other, "VLAN10", 10), "10.0.0.2/24")
    h2 = d.host("esx2", pnics=1)
    d.plug(ps, "esx2.vmnic0", trunk=True)
    d.vm("c", h2, d.pg(d.switch(h2, "vs0", ["esx2.vmnic0"]), "VLAN10", 10), "10.0.0.3/24")
    assert d.verdict("a", "b") is Verdict.VIA_PHYSICAL and d.verdict("a", "c") is Verdict.VIA_PHYSICAL
    d.t.links = [link for link in d.t.links if link.a != "esx1.vmnic2"]
    d.cable("esx1.vmnic2", ps.ports[0].id)            # vs1 now shares vmnic0's port
    assert d.verdict("a", "b") is Verdict.UNREACHABLE and d.predict("a", "b").depends_on_uplink
    assert d.verdict("a", "c") is Verdict.VIA_PHYSICAL
    agree(d)
