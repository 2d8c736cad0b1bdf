"""Private VLANs on vSphere: deploy sends a distributed switch's private VLAN map (``VMwareDVSPvlanConfigSpec``)
and a portgroup's secondary (``PvlanSpec``); import reads both back, and a map edited in the design is
reconfigured entry by entry.

vcsim keeps a portgroup's ``PvlanSpec`` but drops the switch's map (``CreateDVS`` and ``ReconfigureDvs`` ignore
``pvlanConfigSpec``; ``config.pvlanConfig`` stays empty): against it the map's round trip cannot be shown, so
the requests are checked here and a plan against vcsim keeps asking to send the map."""

from __future__ import annotations

from vnetbench.model import Pvlan, PvlanType
from vnetbench_vsphere.pvlan import pvlan_changes, pvlan_data

from vsphere_designs import lab_design

MAP = [Pvlan(200, 200, PvlanType.PROMISCUOUS), Pvlan(200, 201, PvlanType.ISOLATED),
       Pvlan(200, 202, PvlanType.COMMUNITY)]


def pvlan_design():
    design = lab_design("vsphere-pvlan")
    vds = design.switches[1]
    vds.pvlans = list(MAP)
    next(pg for pg in vds.portgroups if pg.name == "dv-vlan20").pvlan = 201
    return design


def _dvs(backend):
    return next(s for s in backend.import_design().switches if s.name == "vnb-test-dvs")


def test_private_vlans_round_trip_through_vcsim(backend):
    design = pvlan_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    dvs = _dvs(backend)
    assert {pg.name: pg.pvlan for pg in dvs.portgroups} == {"dv-vlan20": 201, "dv-trunk": None}
    assert dvs.pvlans == []                            # vcsim dropped the map (see above)
    assert [c.description for c in backend.plan(design).changes] == [
        "distributed switch vnb-test-dvs: private VLANs"], "only the map vcsim dropped is sent again"


def test_an_edited_map_and_portgroup_are_reconfigured(backend):
    design = pvlan_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    vds = design.switches[1]
    vds.pvlans = [e for e in MAP if e.secondary != 202] + [Pvlan(200, 203, PvlanType.COMMUNITY)]
    next(pg for pg in vds.portgroups if pg.name == "dv-vlan20").pvlan = 203
    changes = backend.plan(design).changes
    assert sorted(c.description for c in changes) == [
        "distributed portgroup dv-vlan20: private VLAN 201 -> 203", "distributed switch vnb-test-dvs: private VLANs"]
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert next(pg for pg in _dvs(backend).portgroups if pg.name == "dv-vlan20").pvlan == 203


def test_map_changes_remove_before_they_add():
    ops = [(c.operation, c.pvlanEntry.secondaryVlanId, c.pvlanEntry.pvlanType)
           for c in pvlan_changes(pvlan_data(MAP[:2] + [Pvlan(200, 203, PvlanType.COMMUNITY)]), MAP)]
    assert ops == [("remove", 202, "community"), ("add", 203, "community")]


def test_the_switch_requests_carry_the_map(monkeypatch):
    """What ``CreateDVS`` and ``ReconfigureDvs`` are sent (vcsim drops it): the whole map, then the edits."""
    from types import SimpleNamespace

    from vnetbench_vsphere import apply

    sent = {}
    monkeypatch.setattr(apply.Applier, "_dc", lambda self, name: SimpleNamespace(network_folder=SimpleNamespace(
        CreateDVS_Task=lambda spec: sent.setdefault("create", spec))))
    applier = apply.Applier(None, {}, "design", None)
    applier.inv = SimpleNamespace()                   # (no members to look up)
    applier._create_dvswitch(dict(datacenter="DC0", name="dvs", mtu=1500, add={}, pvlans=pvlan_data(MAP)))
    entries = sent["create"].configSpec.pvlanConfigSpec
    assert [(e.operation, e.pvlanEntry.primaryVlanId, e.pvlanEntry.secondaryVlanId, e.pvlanEntry.pvlanType)
            for e in entries] == [("add", 200, 200, "promiscuous"), ("add", 200, 201, "isolated"),
                                  ("add", 200, 202, "community")]
    held = SimpleNamespace(config=SimpleNamespace(configVersion="3", pvlanConfig=[
        SimpleNamespace(primaryVlanId=200, secondaryVlanId=202, pvlanType="community")]),
        ReconfigureDvs_Task=lambda spec: spec)
    spec = applier._reconfigure_dvs(held, dict(add={}, remove=[], mtu=1500, pvlans=pvlan_data(MAP[:2])))
    assert [(e.operation, e.pvlanEntry.secondaryVlanId) for e in spec.pvlanConfigSpec] == [
        ("remove", 202), ("add", 200), ("add", 201)]
