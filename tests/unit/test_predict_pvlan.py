"""Prediction under private VLANs (SEMANTICS §8, forwarding-rules.md "Private VLANs"): isolated ports talk only to
promiscuous ones, community ports to their own community and promiscuous ones, promiscuous ports to all; between
hosts only where the physical network carries the VLANs each side sends on. The walk and the matrix agree (both
judge with ``decide.pvlan_l2`` on the segment labels)."""

from __future__ import annotations

from builders import Design

from vnetbench.model.objects import Pvlan, PvlanType, SwitchKind
from vnetbench.predict import Engine, Verdict

MAP = [Pvlan(100, 100, PvlanType.PROMISCUOUS), Pvlan(100, 101, PvlanType.ISOLATED),
       Pvlan(100, 102, PvlanType.COMMUNITY), Pvlan(100, 103, PvlanType.COMMUNITY)]


def pvlan_design(allowed: str = "all") -> Design:
    """A vDS on esx1 and esx2 with the map above; esx2's switch port carries ``allowed``. On each host a VM per
    role: promiscuous p, isolated i, community c (102) and d (103)."""
    d = Design("pvlan")
    sw = d.pswitch("tor")
    h1, h2 = d.host("esx1"), d.host("esx2")
    vds = d.switch(None, "dvs", ["esx1.vmnic0", "esx2.vmnic0"], kind=SwitchKind.VDS, members=[h1, h2], pvlans=list(MAP))
    d.plug(sw, "esx1.vmnic0", trunk=True)
    d.plug(sw, "esx2.vmnic0", trunk=True, allowed=allowed)
    pgs = {}
    for name, vlan in (("p", 100), ("i", 101), ("c", 102), ("d", 103)):
        pg = d.pg(vds, f"pv-{name}")
        pg.pvlan = vlan
        pgs[name] = pg
    for n, h in enumerate((h1, h2), start=1):
        for k, name in enumerate("picd"):
            d.vm(f"{name}{n}", h, pgs[name], f"10.0.0.{10 * n + k}/24")
    return d


def agree(d: Design) -> None:
    engine = Engine(d.t)
    for src, dst, verdict in engine.matrix().rows():
        assert engine.predict(src, dst).verdict is verdict, (src, dst, engine.predict(src, dst).reasons)


def test_roles_inside_one_host():
    d = pvlan_design()
    assert d.verdict("p1", "i1") is Verdict.IN_HOST      # promiscuous reaches all
    assert d.verdict("p1", "c1") is Verdict.IN_HOST
    assert d.verdict("c1", "d1") is Verdict.UNREACHABLE  # across communities
    assert d.verdict("i1", "c1") is Verdict.UNREACHABLE
    agree(d)


def test_isolated_ports_never_meet_even_on_one_segment():
    d = pvlan_design()
    extra = d.vm("i9", d.t.hosts[0], next(pg for sw in d.t.switches for pg in sw.portgroups if pg.pvlan == 101),
                 "10.0.0.99/24")
    p = d.predict("i1", extra.id)
    assert p.verdict is Verdict.UNREACHABLE
    said = " ".join(p.reasons)
    assert "isolated secondary VLAN 101 of private VLAN 100" in said
    assert "an isolated port talks only to promiscuous ports" in said
    agree(d)


def test_a_community_talks_to_itself_and_names_the_roles_across_communities():
    d = pvlan_design()
    d.vm("c9", d.t.hosts[0], next(pg for sw in d.t.switches for pg in sw.portgroups if pg.pvlan == 102),
         "10.0.0.98/24")
    assert d.verdict("c1", "c9") is Verdict.IN_HOST
    said = " ".join(d.predict("c1", "d1").reasons)
    assert "community secondary VLAN 102" in said and "community secondary VLAN 103" in said
    assert "its own community" in said


def test_across_hosts_where_the_physical_network_carries_every_vlan():
    d = pvlan_design()
    assert d.verdict("i1", "p2") is Verdict.VIA_PHYSICAL
    assert d.verdict("c1", "c2") is Verdict.VIA_PHYSICAL
    assert d.verdict("p1", "d2") is Verdict.VIA_PHYSICAL
    assert d.verdict("i1", "i2") is Verdict.UNREACHABLE
    assert d.verdict("c1", "d2") is Verdict.UNREACHABLE
    agree(d)


def test_a_secondary_the_trunk_drops_cuts_only_the_pairs_that_send_on_it():
    d = pvlan_design(allowed="100,102,103")      # esx2's port lacks the isolated VLAN 101
    p = d.predict("i1", "p2")
    assert p.verdict is Verdict.UNREACHABLE
    said = " ".join(p.reasons)
    assert "VLAN 101" in said and "esx2" in said and "does not allow VLAN 101" in said
    assert d.verdict("c1", "p2") is Verdict.VIA_PHYSICAL     # the community and the primary still cross
    assert d.verdict("p1", "c2") is Verdict.VIA_PHYSICAL
    agree(d)


def test_the_reply_vlan_counts_too():
    d = pvlan_design(allowed="101,102,103")      # esx2's port lacks the primary: promiscuous replies stop
    assert d.verdict("i1", "p2") is Verdict.UNREACHABLE
    assert d.verdict("c1", "c2") is Verdict.VIA_PHYSICAL
    agree(d)


def test_ports_outside_the_private_vlan_keep_their_vlan_rules():
    d = pvlan_design()
    vds = next(sw for sw in d.t.switches if sw.name == "dvs")
    plain = d.pg(vds, "plain", 100)         # a plain portgroup in the primary's VLAN number is validation's to flag
    plain.pvlan = None
    d.phost("srv", d.port(d.t.physical_switches[0], "srv", vlan=100), "10.0.0.200/24")
    assert d.verdict("srv", "p1") is Verdict.VIA_PHYSICAL   # the primary is VLAN 100 on the wire
    assert d.verdict("srv", "i1") is Verdict.UNREACHABLE    # isolated frames leave on VLAN 101
    agree(d)


def test_an_outsider_meets_a_port_only_on_the_vlan_it_sends_on_and_never_an_isolated_one():
    """A physical host outside the private VLAN takes, at the vDS, the role of the VLAN it sits on: on the
    isolated VLAN it reaches no isolated port (the vDS hands its frames to promiscuous ports only, and those
    answer on the primary, which it does not hear); on a community VLAN it is one of that community."""
    d = pvlan_design()
    d.phost("scan", d.port(d.t.physical_switches[0], "scan", vlan=101), "10.0.0.201/24")
    d.phost("dba", d.port(d.t.physical_switches[0], "dba", vlan=102), "10.0.0.202/24")
    for vm in ("i1", "i2"):
        assert d.verdict("scan", vm) is Verdict.UNREACHABLE, vm
        assert d.verdict(vm, "scan") is Verdict.UNREACHABLE, vm
    said = " ".join(d.predict("scan", "i1").reasons)
    assert "isolated secondary VLAN 101 of private VLAN 100 without being a port of it" in said
    assert d.verdict("dba", "c1") is Verdict.VIA_PHYSICAL
    assert d.verdict("c2", "dba") is Verdict.VIA_PHYSICAL
    assert d.verdict("dba", "p1") is Verdict.UNREACHABLE     # p1 answers on the primary, which dba does not hear
    assert d.verdict("dba", "scan") is Verdict.UNREACHABLE   # two plain VLANs, no router
    agree(d)


def test_a_physical_switch_with_its_own_map_gives_its_ports_roles():
    """tor enforces the vDS's map on its own ports: a firewall on the primary (a promiscuous port) hears every
    secondary, a scanner on the isolated VLAN reaches promiscuous ports only, a DBA host on community 102 its
    community and the promiscuous ports. Without the map, tor carries the VLANs plainly and the firewall on
    VLAN 100 never hears what isolated and community ports send on their secondaries."""
    expected = {("fw", "i1"): Verdict.VIA_PHYSICAL, ("i2", "fw"): Verdict.VIA_PHYSICAL,
                ("fw", "c1"): Verdict.VIA_PHYSICAL, ("scan", "p1"): Verdict.VIA_PHYSICAL,
                ("dba", "p1"): Verdict.VIA_PHYSICAL, ("scan", "fw"): Verdict.IN_HOST,
                ("scan", "i1"): Verdict.UNREACHABLE, ("dba", "i1"): Verdict.UNREACHABLE,
                ("dba", "scan"): Verdict.UNREACHABLE, ("dba", "c2"): Verdict.VIA_PHYSICAL}
    for aware in (True, False):
        d = pvlan_design()
        tor = d.t.physical_switches[0]
        tor.pvlans = list(MAP) if aware else []
        for name, vlan, ip in (("fw", 100, "10.0.0.200/24"), ("scan", 101, "10.0.0.201/24"),
                               ("dba", 102, "10.0.0.202/24")):
            d.phost(name, d.port(tor, name, vlan=vlan), ip)
        for (a, b), verdict in expected.items():
            plain = Verdict.VIA_PHYSICAL if (a, b) == ("dba", "c2") else Verdict.UNREACHABLE
            assert d.verdict(a, b) is (verdict if aware else plain), (aware, a, b)
        agree(d)
    said = " ".join(d.predict("scan", "fw").reasons)
    assert "VLAN 101" in said and "VLAN 100" in said, said


def teamed_pvlan(allowed: str, pin: bool) -> Design:
    """esx1's vDS teams vmnic0 (tor, every VLAN) and vmnic1 (tor2, ``allowed``) by originating port; esx2 sits on
    tor. VMs p, i, c per host (``pin``: esx1's pinned to vmnic1)."""
    from vnetbench.model.objects import LoadBalancing, Teaming

    d = Design("pvt")
    tor, tor2 = d.pswitch("tor"), d.pswitch("tor2")
    h1, h2 = d.host("esx1"), d.host("esx2")
    vds = d.switch(None, "dvs", ["esx1.vmnic0", "esx1.vmnic1", "esx2.vmnic0"], kind=SwitchKind.VDS, members=[h1, h2],
                   pvlans=list(MAP), teaming=Teaming(LoadBalancing.PORT_ID))
    d.plug(tor, "esx1.vmnic0", trunk=True)
    d.plug(tor2, "esx1.vmnic1", trunk=True, allowed=allowed)
    d.plug(tor, "esx2.vmnic0", trunk=True)
    d.cable(d.port(tor, "up", trunk=True).id, d.port(tor2, "up", trunk=True).id)
    pgs = {}
    for name, vlan in (("p", 100), ("i", 101), ("c", 102)):
        pgs[name] = d.pg(vds, f"pv-{name}")
        pgs[name].pvlan = vlan
    for n, h in enumerate((h1, h2), start=1):
        for k, name in enumerate("pic"):
            vm = d.vm(f"{name}{n}", h, pgs[name], f"10.0.0.{10 * n + k}/24")
            if pin and n == 1:
                vm.vnics[0].uplink = "esx1.vmnic1"
    return d


def test_a_teamed_uplink_that_drops_a_secondary_makes_its_pairs_depend_on_the_uplink():
    d = teamed_pvlan("100,102,103", pin=False)
    p = d.predict("i1", "p2")
    assert p.verdict is Verdict.UNREACHABLE and p.depends_on_uplink          # the worst of the two uplinks
    assert d.verdict("c1", "p2") is Verdict.VIA_PHYSICAL and not d.predict("c1", "p2").depends_on_uplink
    agree(d)
    pinned = teamed_pvlan("100,102,103", pin=True)
    assert pinned.verdict("i1", "p2") is Verdict.UNREACHABLE and not pinned.predict("i1", "p2").depends_on_uplink
    agree(pinned)


def test_a_teamed_uplink_that_drops_the_primary_cuts_the_promiscuous_port_there():
    d = teamed_pvlan("101-103", pin=False)
    assert d.predict("p1", "p2").depends_on_uplink and d.verdict("i2", "p1") is Verdict.UNREACHABLE
    assert d.verdict("i1", "p2") is Verdict.VIA_PHYSICAL
    agree(d)
    everything = teamed_pvlan("all", pin=False)
    assert everything.verdict("i1", "p2") is Verdict.VIA_PHYSICAL and not everything.predict("i1", "p2").depends_on_uplink
    agree(everything)
