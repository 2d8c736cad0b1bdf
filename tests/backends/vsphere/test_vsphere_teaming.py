"""Teaming policies on vSphere: deploy sends load balancing, failure detection, notify switches and failback on
standard switches and portgroups and distributed portgroups; import reads them back as the design said them,
and a second plan against what the server holds changes nothing."""

from __future__ import annotations

from pyVmomi import vim
from vnetbench.backends.contract import Op
from vnetbench.model import FailureDetection, LoadBalancing, Teaming
from vnetbench_vsphere.apply import portgroup_spec, vswitch_spec
from vnetbench_vsphere.teaming import read_teaming, teaming_data

from vsphere_designs import lab_design

SWITCH = Teaming(LoadBalancing.FAILOVER_ORDER, FailureDetection.BEACON, notify_switches=False, failback=False)
OVERRIDE = Teaming(LoadBalancing.IP_HASH)
DVS_POLICY = Teaming(LoadBalancing.MAC_HASH, notify_switches=False)
DVPG_OVERRIDE = Teaming(LoadBalancing.LOAD_BASED, failback=False)


def teamed_design():
    design = lab_design("vsphere-teaming")
    vss, vds = design.switches
    vss.teaming = SWITCH
    next(pg for pg in vss.portgroups if pg.name == "vlan10").teaming = OVERRIDE
    vds.teaming = DVS_POLICY
    next(pg for pg in vds.portgroups if pg.name == "dv-vlan20").teaming = DVPG_OVERRIDE
    return design


def test_teaming_policies_round_trip_through_vcsim(backend):
    design = teamed_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    topo = backend.import_design()
    lab = next(s for s in topo.switches if s.name == "lab")
    # vcsim keeps no standard switch spec: the switch's policy comes back from its portgroups (each was sent it)
    assert lab.teaming == SWITCH
    assert {pg.name: pg.teaming for pg in lab.portgroups} == {"untagged": None, "vlan10": OVERRIDE, "all-vlans": None}
    dvs = next(s for s in topo.switches if s.name == "vnb-test-dvs")
    assert dvs.teaming == DVS_POLICY
    assert {pg.name: pg.teaming for pg in dvs.portgroups} == {"dv-vlan20": DVPG_OVERRIDE, "dv-trunk": None}
    assert list(backend.plan(design).changes) == [], "deployed policies read back equal"


def test_a_changed_distributed_portgroup_policy_is_reconfigured(backend):
    design = teamed_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    pg = next(pg for pg in design.switches[1].portgroups if pg.name == "dv-trunk")
    pg.teaming = Teaming(LoadBalancing.FAILOVER_ORDER, FailureDetection.BEACON)
    changes = list(backend.plan(design).changes)
    assert [(c.op, c.kind, c.description) for c in changes] == [
        (Op.UPDATE, "dvportgroup", "distributed portgroup dv-trunk: teaming policy")]
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    dvs = next(s for s in backend.import_design().switches if s.name == "vnb-test-dvs")
    assert next(p for p in dvs.portgroups if p.name == "dv-trunk").teaming == pg.teaming


def test_the_standard_requests_carry_the_policy():
    """vcsim has no UpdatePortGroup and keeps no standard switch spec: the requests vnetbench sends, checked here."""
    data = dict(host="h", name="vnb-x", vswitch="vnb-sw", vlan=10, active=None, standby=None, mtu=1500,
                security=dict(promiscuous=False, mac_changes=False, forged_transmits=False),
                teaming=teaming_data(SWITCH))
    team = portgroup_spec(data).policy.nicTeaming
    assert (team.policy, team.failureCriteria.checkBeacon, team.notifySwitches, team.rollingOrder) == \
        ("failover_explicit", True, False, True)
    assert team.nicOrder is None                       # the portgroup keeps its switch's order
    assert read_teaming(team) == SWITCH
    switch = vswitch_spec({**data, "active": ["vmnic0"], "standby": ["vmnic1"]}).policy.nicTeaming
    assert isinstance(switch, vim.host.NetworkPolicy.NicTeamingPolicy)
    assert (switch.policy, list(switch.nicOrder.activeNic), list(switch.nicOrder.standbyNic)) == \
        ("failover_explicit", ["vmnic0"], ["vmnic1"])
    assert read_teaming(switch) == SWITCH
