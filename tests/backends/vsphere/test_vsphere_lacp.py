"""LACP link aggregation groups of a distributed switch on vSphere (enhanced LACP).

Deploy creates the switch with ``lacpApiVersion`` multipleLag, sends its LAGs with ``UpdateDVSLacpGroupConfig``
(``VMwareDvsLacpGroupSpec``), puts the members' pNICs on the LAGs' ports, and names the LAG as the only active
uplink of a portgroup that sends through it; import reads ``config.lacpGroupConfig`` back into the design's LAGs.

vcsim (govmomi v0.46.3) has no ``UpdateDVSLacpGroupConfig``: the change fails with vcsim's reason and the
portgroup that needs the LAG is not tried. The LAG as vCenter then holds it (and the members' pNICs on its ports)
is recorded into a saved inventory (``vcenter_records``); from there the portgroup deploys through vcsim, the
design imports back equal, and a plan is empty. The requests themselves: ``tests/unit/test_vsphere_lacp_requests.py``.
"""

from __future__ import annotations

import pytest
from vnetbench.model import LacpMode, Lag, LagHash, PNic, Teaming

from vcenter_records import lag_xml, member_xml, record_dvs
from vcsim_tools import make_backend
from vsphere_designs import lab_design

pytestmark = pytest.mark.slow

DVS = "vnb-test-dvs"


def lag_design():
    """The lab with vmnic1 of each cluster host in LAG lag1 (LACP active, address hash), and dv-trunk sending
    through it."""
    design = lab_design("vsphere-lacp")
    for host in design.hosts[1:]:
        host.pnics.append(PNic(f"{host.id}-vmnic1", "vmnic1"))
    vds = design.switches[1]
    vds.lags = [Lag("lag1", "lag1", [f"{h.id}-vmnic1" for h in design.hosts[1:]], LacpMode.ACTIVE,
                    LagHash.SRC_DST_IP)]
    next(pg for pg in vds.portgroups if pg.name == "dv-trunk").teaming = Teaming(lag="lag1")
    return design


def test_lags_deploy_as_far_as_vcsim_goes_and_round_trip_as_vcenter_holds_them(vcsim, memory_keyring, tmp_path):
    design = lag_design()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    plan = backend.plan(design)
    assert "LAGs of distributed switch vnb-test-dvs: add lag1" in [c.description for c in plan.changes]
    failed = {r.change.description: r.error for r in backend.apply(plan) if not r.ok}
    lags = failed.pop("LAGs of distributed switch vnb-test-dvs: add lag1")
    assert "ManagedObjectNotFound" in lags                 # vcsim's answer (see the plugin README)
    assert failed == {
        "distributed portgroup dv-trunk on vnb-test-dvs, trunk 100-200,300":
            "not tried: LAGs of distributed switch vnb-test-dvs failed",
        "VM vnb-test-c on DC0_C0_H1 with 1 vNICs": "not tried: distributed portgroup dv-trunk failed"}
    inv = backend.inventory()
    assert inv.dvs(DVS).lacp_version == "multipleLag", "the create spec's enhanced LACP is held"

    saved = tmp_path / "saved"
    vcsim.govc("object.save", "-d", str(saved))
    members = [inv.host(h.name).moid for h in design.hosts[1:]]
    record_dvs(saved, DVS, lag_xml("lag-key-1", "lag1", "active", "srcDestIp", ["200"]),
               *(member_xml(moid, [("vmnic0", "100"), ("vmnic1", "200")]) for moid in members))
    backend.close()
    vcsim.kill()
    vcsim.args = ["-load", str(saved)]
    vcsim.start()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    assert sorted(c.description for c in backend.plan(design).changes) == [
        "VM vnb-test-c on DC0_C0_H1 with 1 vNICs", "distributed portgroup dv-trunk on vnb-test-dvs, trunk 100-200,300"]
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert backend.inventory().dvpg("dv-trunk").order == (["lag1"], []), "the LAG is the portgroup's active uplink"
    vds = next(s for s in backend.import_design().switches if s.name == DVS)
    ids = {f"{moid}-{dev}": f"{h.id}-{dev}" for moid, h in zip(members, design.hosts[1:], strict=True)
           for dev in ("vmnic0", "vmnic1")}
    (lag,) = vds.lags
    assert (lag.name, lag.mode, lag.hash, [ids[p] for p in lag.pnics]) == \
        ("lag1", LacpMode.ACTIVE, LagHash.SRC_DST_IP, design.switches[1].lags[0].pnics)
    assert [ids[u.pnic] for u in vds.uplinks] == [u.pnic for u in design.switches[1].uplinks], \
        "LAG members are not standalone uplinks"
    assert {pg.name: pg.teaming for pg in vds.portgroups} == {"dv-vlan20": None, "dv-trunk": Teaming(lag=lag.id)}
    assert list(backend.plan(design).changes) == []
    backend.close()


def _with_recorded_lag(vcsim, memory_keyring, tmp_path, design, vmnic1_port: str):  # noqa: ANN001, ANN202
    """Deploy ``design``, then restart vcsim from its saved inventory with lag1 recorded on the switch (vcsim has
    no UpdateDVSLacpGroupConfig) and each member's vmnic1 on uplink port ``vmnic1_port`` (200: lag1's); a new
    backend on it."""
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    backend.apply(backend.plan(design))
    inv = backend.inventory()
    saved = tmp_path / "saved"
    vcsim.govc("object.save", "-d", str(saved))
    record_dvs(saved, DVS, lag_xml("lag-key-1", "lag1", "active", "srcDestIp", ["200"]),
               *(member_xml(inv.host(h.name).moid, [("vmnic0", "100"), ("vmnic1", vmnic1_port)])
                 for h in design.hosts[1:]))
    backend.close()
    vcsim.kill()
    vcsim.args = ["-load", str(saved)]
    vcsim.start()
    return make_backend(vcsim, memory_keyring, tmp_path)


def test_a_changed_lag_and_a_lag_vcenter_does_not_hold_are_planned(vcsim, memory_keyring, tmp_path):
    """Against the recorded LAG: an edited mode is an edit of it by its key, a new LAG an add."""
    design = lag_design()
    backend = _with_recorded_lag(vcsim, memory_keyring, tmp_path, design, vmnic1_port="200")
    vds = design.switches[1]
    vds.lags[0].mode = LacpMode.PASSIVE
    vds.lags.append(Lag("lag2", "lag2", [], LacpMode.ACTIVE))
    lacp = [c for c in backend.plan(design).changes if c.kind == "lacp"]
    assert [c.description for c in lacp] == ["LAGs of distributed switch vnb-test-dvs: edit lag1; add lag2"]
    backend.close()


def test_a_static_lag_is_refused_before_anything_is_sent(backend):
    design = lag_design()
    design.switches[1].lags[0].mode = LacpMode.STATIC
    with pytest.raises(Exception, match="LAG 'lag1' of 'vnb-test-dvs' is static"):
        backend.plan(design)


def test_member_pnics_off_their_lags_ports_are_moved_onto_them(vcsim, memory_keyring, tmp_path):
    """vCenter reports each member's vmnic1 on a standalone uplink port, not on lag1's: the LAG change moves them
    (a member edit naming the LAG's port; vcsim refuses member edits, so here it fails with vcsim's reason)."""
    design = lag_design()
    backend = _with_recorded_lag(vcsim, memory_keyring, tmp_path, design, vmnic1_port="101")
    (lacp,) = [c for c in backend.plan(design).changes if c.kind == "lacp"]
    assert lacp.description == ("LAGs of distributed switch vnb-test-dvs: vmnic1 of DC0_C0_H0 into their LAGs; "
                                "vmnic1 of DC0_C0_H1 into their LAGs; vmnic1 of DC0_C0_H2 into their LAGs")
    (result,) = [r for r in backend.apply(backend.plan(design)) if r.change.kind == "lacp"]
    assert not result.ok and "NotSupported" in result.error
    backend.close()
