"""The largest packet counts the switch ports that physical hosts and router interfaces plug into: a jumbo VM
talking to a NAS on a 1500-byte port gets 1500 through, and so does a router whose legs sit on 1500-byte ports."""

from __future__ import annotations

from builders import Design

from vnetbench.predict import Engine
from vnetbench.predict.lint import check


def jumbo(nas_port_mtu: int = 1500, routed: bool = False, router_port_mtu: int = 1500) -> Design:
    """esx1 at MTU 9000 end to end (vNIC, vSwitch, pNIC, its port); a NAS on sw1 in VLAN 10 (or 20 behind r1)."""
    d = Design()
    sw1 = d.pswitch("sw1")
    h = d.host("esx1", pnics=1)
    h.pnics[0].mtu = 9000
    vs = d.switch(h, "vSwitch0", ["esx1.vmnic0"], mtu=9000)
    d.plug(sw1, "esx1.vmnic0", trunk=True).mtu = 9000
    nas_vlan = 20 if routed else 10
    vm = d.vm("db", h, d.pg(vs, "VLAN10", 10), "10.0.10.5/24", "10.0.10.1" if routed else None)
    vm.vnics[0].mtu = 9000
    if routed:
        legs = d.port(sw1, "r", trunk=True)
        legs.mtu = router_port_mtu
        d.router("r1", [(legs, "10.0.10.1/24", 10), (legs, "10.0.20.1/24", 20)])
    nas = d.port(sw1, "nas", vlan=nas_vlan)
    nas.mtu = nas_port_mtu
    d.phost("nas", nas, f"10.0.{nas_vlan}.9/24", "10.0.20.1" if routed else None)
    return d


def test_a_jumbo_vm_to_a_nas_on_a_1500_byte_port_gets_1500_through_both_ways():
    engine = Engine(jumbo().t)
    for a, b in (("db", "nas"), ("nas", "db")):
        mtu, at = engine.predict(a, b).mtu
        assert mtu == 1500 and "port nas of sw1" in at, (a, b, mtu, at)


def test_a_nas_on_a_jumbo_port_takes_jumbo_packets():
    assert Engine(jumbo(nas_port_mtu=9000).t).predict("db", "nas").mtu[0] == 9000


def test_a_router_whose_legs_sit_on_1500_byte_ports_routes_1500():
    mtu, at = Engine(jumbo(nas_port_mtu=9000, routed=True).t).predict("db", "nas").mtu
    assert mtu == 1500 and "port r of sw1" in at, at
    assert Engine(jumbo(nas_port_mtu=9000, routed=True, router_port_mtu=9000).t).predict("db", "nas").mtu[0] == 9000


def _mtu_warnings(d: Design) -> list[str]:
    return [p.message for p in check(d.t) if "jumbo" in p.message]


def test_validation_warns_when_jumbo_vms_share_a_subnet_with_a_host_on_a_smaller_port():
    (message,) = _mtu_warnings(jumbo())
    assert "db/eth0" in message and "port nas of sw1" in message and "1500" in message, message
    assert not _mtu_warnings(jumbo(nas_port_mtu=9000))
    assert not _mtu_warnings(jumbo(routed=True))     # a router in between fragments or answers "too big"


def test_the_limit_names_its_mtu_whatever_the_names_say():
    """Where the largest packet stops is worded from the limit's data, not from its words: a switch whose name
    ends in ")" or holds "overlay" still gets its "(MTU n)"."""
    for name in ("sw1 (rack A)", "overlay-core"):
        d = jumbo()
        d.t.physical_switches[0].name = name
        mtu, at = Engine(d.t).predict("db", "nas").mtu
        assert mtu == 1500 and at == f"port nas of {name} (MTU 1500)", at
