"""Endpoints outside a private VLAN, deployed in the local lab: a physical host on the isolated secondary VLAN
reaches no isolated web server, one on a community VLAN is one of that community; ping agrees with the
prediction for every pair (real network namespaces)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_designs import unique_id
from lab_verify import verify_every_pair

from vnetbench.model import Link, PhysicalHost, load
from vnetbench.model.objects import HostNic, Port, PortMode
from vnetbench.predict import Engine, Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "esx-private-vlans.vnet.yaml"


def _with_outsiders():
    """esx-private-vlans with two physical hosts on access ports of tor-a: scanner on isolated VLAN 201, dbadmin
    on community VLAN 202."""
    design = load(EXAMPLE)
    design.id = unique_id("pvout")
    tor = design.physical_switches[0]
    for name, vlan, ip in (("scanner", 201, "10.20.0.201/24"), ("dbadmin", 202, "10.20.0.202/24")):
        port = Port(f"port-{name}", f"Gi1/0/{vlan}", PortMode.ACCESS, access_vlan=vlan)
        tor.ports.append(port)
        design.physical_hosts.append(PhysicalHost(f"ph-{name}", name, [HostNic(f"ph-{name}-eth0", "eth0", ip)]))
        design.links.append(Link(f"link-{name}", f"ph-{name}-eth0", port.id))
    return design


def test_outsiders_on_secondary_vlans_get_those_vlans_roles_in_the_lab_as_predicted(lab):
    design = _with_outsiders()
    engine = Engine(design)
    assert engine.predict("scanner", "web01").verdict is Verdict.UNREACHABLE
    assert engine.predict("web01", "scanner").verdict is Verdict.UNREACHABLE
    assert engine.predict("dbadmin", "db01").verdict is Verdict.VIA_PHYSICAL
    assert engine.predict("db02", "dbadmin").verdict is Verdict.VIA_PHYSICAL
    assert engine.predict("dbadmin", "backup01").verdict is Verdict.UNREACHABLE   # answers on the primary
    lab.up(design)
    result, bad = verify_every_pair(lab, design)
    assert not bad, bad
    names = {(c.src_name, c.dst_name) for c in result.cells}
    assert {("scanner", "web01"), ("dbadmin", "db01")} <= names, sorted(names)
