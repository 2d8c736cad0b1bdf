"""A distributed portgroup's explicit uplink order on vSphere: deploy names the switch's uplinks (``Uplink 1`` ..)
and sends a portgroup's order of pNICs as its ``uplinkPortOrder`` of those names; import turns the names back
into each member's pNICs, and a second plan against what the server holds changes nothing.

vcsim keeps the names and the order, but not which pNIC of each member is on which uplink (``config.host`` stays
empty): there import warns that it cannot say the order in pNICs. With the members as vCenter reports them
(recorded into a saved inventory, ``vcenter_records``) the order round-trips."""

from __future__ import annotations

import pytest
from vnetbench.model import PNic, Uplink

from vcenter_records import member_xml, record_dvs
from vcsim_tools import make_backend
from vsphere_designs import lab_design

pytestmark = pytest.mark.slow

DVS = "vnb-test-dvs"


def ordered_design():
    """The lab, its cluster hosts with two pNICs on the vDS, and dv-vlan20 preferring vmnic1 (vmnic0 standby)."""
    design = lab_design("vsphere-uplink-order")
    cluster = design.hosts[1:]
    for host in cluster:
        host.pnics.append(PNic(f"{host.id}-vmnic1", "vmnic1"))
    vds = design.switches[1]
    vds.uplinks = [Uplink(f"{h.id}-{dev}") for h in cluster for dev in ("vmnic0", "vmnic1")]
    pg = next(pg for pg in vds.portgroups if pg.name == "dv-vlan20")
    pg.uplinks = [Uplink(f"{h.id}-{dev}", standby) for h in cluster for dev, standby in (("vmnic1", False),
                                                                                         ("vmnic0", True))]
    return design, pg


def test_a_distributed_portgroups_uplink_order_round_trips(vcsim, memory_keyring, tmp_path):
    design, pg = ordered_design()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    inv = backend.inventory()
    assert inv.dvs(DVS).uplink_names == ["Uplink 1", "Uplink 2"]
    assert inv.dvpg("dv-vlan20").order == (["Uplink 2"], ["Uplink 1"])
    assert inv.dvpg("dv-trunk").order is None, "a portgroup without an order of its own inherits the switch's"
    assert list(backend.plan(design).changes) == [], "the order vSphere holds is the one designed"
    topo = backend.import_design()
    warnings = [w for w in topo.description.splitlines() if "uplink order of portgroup dv-vlan20" in w]
    assert warnings and "Uplink 2, Uplink 1 standby" in warnings[0], "vcsim does not tell the members' pNICs"

    saved = tmp_path / "saved"
    vcsim.govc("object.save", "-d", str(saved))
    members = [inv.host(h.name).moid for h in design.hosts[1:]]
    record_dvs(saved, DVS, *(member_xml(moid, [("vmnic0", "100"), ("vmnic1", "101")]) for moid in members))
    backend.close()
    vcsim.kill()
    vcsim.args = ["-load", str(saved)]
    vcsim.start()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    vds = next(s for s in backend.import_design().switches if s.name == DVS)
    ids = {f"{moid}-{dev}": f"{h.id}-{dev}" for moid, h in zip(members, design.hosts[1:], strict=True)
           for dev in ("vmnic0", "vmnic1")}
    imported = next(p for p in vds.portgroups if p.name == "dv-vlan20")
    assert [(ids[u.pnic], u.standby) for u in imported.uplinks] == [(u.pnic, u.standby) for u in pg.uplinks]
    assert [ids[u.pnic] for u in vds.uplinks] == [u.pnic for u in design.switches[1].uplinks]
    assert next(p for p in vds.portgroups if p.name == "dv-trunk").uplinks is None
    assert list(backend.plan(design).changes) == []
    pg.uplinks = [Uplink(u.pnic, not u.standby) for u in pg.uplinks]     # the other way round
    changes = list(backend.plan(design).changes)
    assert [c.description for c in changes] == [
        "distributed portgroup dv-vlan20: uplink order Uplink 1 > Uplink 2 (standby)"]
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert backend.inventory().dvpg("dv-vlan20").order == (["Uplink 1"], ["Uplink 2"])
    pg.uplinks = None                                                    # back to the switch's order
    assert [c.description for c in backend.plan(design).changes] == [
        "distributed portgroup dv-vlan20: uplink order of the switch"]
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert backend.inventory().dvpg("dv-vlan20").order is None
    assert list(backend.plan(design).changes) == []
    backend.close()


def test_an_order_hosts_disagree_on_is_refused_before_anything_is_sent(backend):
    design, pg = ordered_design()
    pg.uplinks[2:4] = [Uplink("c1-vmnic0"), Uplink("c1-vmnic1", standby=True)]     # c1 the other way round
    with pytest.raises(Exception, match="dv-vlan20.*another order than those of the other hosts"):
        backend.plan(design)
