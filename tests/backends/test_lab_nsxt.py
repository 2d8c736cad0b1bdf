"""The NSX-T example deployed for real in the local lab and verified pair by pair: Tier-1 and Tier-0 distributed
routers as routing namespaces on every host, the Tier-0 service router as the edge node's namespace, the
segments as per-host bridges joined by VXLAN between the tunnel endpoints, in per-rack TEP subnets routed by
the physical L3 switch, the edge node's SNAT and DNAT as nftables (TCP in through the DNAT); and the MTU of a routed transport, the kernel's own limit against the prediction's."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_designs import unique_id, vm
from lab_verify import verify_every_pair
from test_local_mtu import ICMP_AND_IP, ping_df

from vnetbench.measure.verify import Outcome
from vnetbench.model import (Encapsulation, Host, Link, PhysicalRouter, PhysicalSwitch, PNic, Port, Portgroup,
                             PortMode, RouterInterface, Switch, SwitchKind, Topology, Uplink, load)
from vnetbench.model.objects import Tep
from vnetbench.predict import Engine

pytestmark = [pytest.mark.lab, pytest.mark.slow]

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def test_the_tier1_tier0_example_confirms_every_pair(lab):
    design = load(EXAMPLES / "nsx-t-t1-t0.vnet.yaml")
    lab.up(design)
    result, bad = verify_every_pair(lab, design)
    print("\n".join(map(str, bad)))
    assert bad == []
    # east-west, north-south, across the racks' routed TEP subnets, out through en01's SNAT, and the way in
    # that nothing routes (confirmed unreachable)
    assert {(c.src_name, c.dst_name) for c in result.cells} >= {("web01", "db01"), ("web01", "srv01"),
                                                                ("srv01", "app02"), ("db01", "srv01"),
                                                                ("srv01", "db01")}
    # in through en01's DNAT rule db-in: srv01 connects to 10.100.0.2 port 15432 and reaches db01's port 5432
    # (refused there, as nothing listens: the packets went through), the replies back through the translation;
    # the probe is the prediction's, and the verifier confirmed it
    inward = next(c for c in result.cells if (c.src_name, c.dst_name) == ("srv01", "db01"))
    [tcp] = [ch for ch in inward.checks if ch.what == "tcp/5432"]
    assert (tcp.outcome, tcp.predicted, tcp.observed) == (Outcome.CONFIRMED, "routed-via-physical", "reached")


def routed_overlay() -> Topology:
    """An NSX segment at MTU 9000 across two hosts whose tunnel endpoints sit in two subnets (VLAN 51 and 52),
    routed by r1, whose legs share a 1600-byte trunk port; every other port and pNIC takes 9000."""
    t = Topology(unique_id("tep-routed"), name="VXLAN between per-rack TEP subnets, routed on a 1600-byte port")
    ps = PhysicalSwitch("s", "tor", ports=[Port("s-r", "Gi8", PortMode.TRUNK, mtu=1600)])
    t.physical_switches.append(ps)
    for i in (1, 2):
        t.hosts.append(Host(f"h{i}", f"esx{i}", pnics=[PNic(f"h{i}-n0", "vmnic0", 10000, mtu=9000)],
                            tep=Tep(f"10.5{i}.0.1{i}/24", f"10.5{i}.0.1")))
        ps.ports.append(Port(f"p{i}", f"Gi{i}", PortMode.ACCESS, access_vlan=50 + i, mtu=9000))
        t.links.append(Link(f"l{i}", f"h{i}-n0", f"p{i}"))
        t.vms.append(vm(f"v{i}", f"h{i}", "ls-pg", f"172.16.0.{i}/24"))
        t.vms[-1].vnics[0].mtu = 9000
    t.physical_routers.append(PhysicalRouter("r1", "r1", interfaces=[
        RouterInterface("r1-a", "eth0", ip="10.51.0.1/24", vlan=51),
        RouterInterface("r1-b", "eth1", ip="10.52.0.1/24", vlan=52)]))
    t.links += [Link("lra", "r1-a", "s-r"), Link("lrb", "r1-b", "s-r")]
    t.switches.append(Switch("ls", "ls", SwitchKind.NSX_SEGMENT, members=["h1", "h2"], mtu=9000,
                             uplinks=[Uplink("h1-n0"), Uplink("h2-n0")], encapsulation=Encapsulation.VXLAN,
                             portgroups=[Portgroup("ls-pg", "ls")]))
    return t


def test_a_routed_transport_carries_the_overlay_and_its_smallest_port_limits_it(lab):
    """The tunnel between the two TEP subnets is routed by r1; its 1600-byte port is the smallest on the way, so
    the largest guest packet is 1600 - 50 (VXLAN): it gets through both ways, one byte more does not."""
    d = routed_overlay()
    engine = Engine(d)
    for a, b in (("v1", "v2"), ("v2", "v1")):
        p = engine.predict(a, b, "icmp")
        assert str(p.verdict) == "via-physical"
        assert any("is routed by r1" in r for r in p.reasons)
        mtu, at = p.mtu
        assert (mtu, "port Gi8 of tor" in at) == (1550, True), at
    lab.up(d)
    for a, b in (("v1", "v2"), ("v2", "v1")):
        target = lab.endpoint(d, b).address()
        assert ping_df(lab, d, a, target, 1550 - ICMP_AND_IP), (a, b)
        assert not ping_df(lab, d, a, target, 1550 - ICMP_AND_IP + 1), (a, b)
