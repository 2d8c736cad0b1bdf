"""Plan, apply, re-apply, change and tear down against vcsim."""

from __future__ import annotations

import json

import pytest
from vnetbench.backends.contract import CancelToken, DeployState, Op, Unsupported
from vnetbench.model import NicType

from vsphere_designs import lab_design

pytestmark = pytest.mark.slow


def summary(plan):
    return sorted((c.op.value, c.kind) for c in plan.changes)


def test_plan_apply_reapply_teardown(backend):
    design = lab_design()
    plan = backend.plan(design)
    assert summary(plan) == sorted([("create", "vswitch"), ("create", "dvswitch")] + [("create", "portgroup")] * 3
                                   + [("create", "dvportgroup")] * 2 + [("create", "vm")] * 3)
    seen = []
    results = backend.apply(plan, progress=lambda done, total, msg: seen.append((done, total)))
    assert [r.error for r in results if not r.ok] == []
    assert seen[-1] == (len(plan.changes), len(plan.changes))
    assert backend.plan(design).empty, "an unchanged design plans nothing"
    states = backend.status(design)
    assert {s.state for s in states.values()} == {DeployState.DEPLOYED}

    inv = backend.inventory()
    host = inv.host("DC0_H0")
    pgs = {p.name.split("-", 2)[2]: p for p in host.portgroups if p.name.startswith("vnb-")}
    assert {n: p.vlan for n, p in pgs.items()} == {"untagged": 0, "vlan10": 10, "all-vlans": 4095}
    assert pgs["all-vlans"].security.promiscuous is True
    dvs = inv.dvs("vnb-test-dvs")
    assert sorted(inv.host_by_moid(m).name for m in dvs.members) == ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2"]
    assert inv.dvpg("dv-trunk").vlan == "trunk 100-200,300"
    assert inv.dvpg("dv-trunk").security.forged_transmits is False
    vm_a = inv.vm("vnb-test-a")
    assert [n.type for n in vm_a.nics] == [NicType.VMXNET3, NicType.E1000E]
    assert vm_a.marker == design.id and vm_a.custom_marker == design.id

    (deployed,) = backend.deployments()
    assert (deployed.design_id, deployed.objects) == (design.id, len(plan.changes))

    removed = backend.teardown(design.id)
    assert all(r.ok for r in removed) and len(removed) == len(plan.changes)
    assert backend.deployments() == []
    assert summary(backend.plan(design)) == summary(plan), "teardown removed everything it made"


def test_teardown_keeps_objects_vnetbench_did_not_make(backend, vcsim):
    vcsim.govc("host.vswitch.add", "-host", "DC0_H0", "keep-sw")
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "keep-sw", "-vlan", "10", "keep-pg")
    vcsim.govc("dvs.create", "keep-dvs")
    vcsim.govc("dvs.portgroup.add", "-dvs", "keep-dvs", "keep-dvpg")
    vcsim.govc("vm.create", "-on=false", "-host", "DC0_H0", "-net", "keep-pg", "keep-vm")
    before = backend.inventory()
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    other = lab_design("another-design")
    for vm in other.vms:
        vm.name = vm.name.replace("vnb-test", "vnb-other")
    other.switches[1].name = "vnb-other-dvs"
    for pg in other.switches[1].portgroups:
        pg.name = "other-" + pg.name
    assert all(r.ok for r in backend.apply(backend.plan(other)))

    assert all(r.ok for r in backend.teardown(design.id))
    after = backend.inventory()
    for name in ("keep-vm", "DC0_H0_VM0", "DC0_C0_RP0_VM0", "vnb-other-a"):
        assert after.vm(name) is not None, name
    assert {d.name for d in after.dvses} == {"DVS0", "keep-dvs", "vnb-other-dvs"}
    assert {p.name for p in after.dvpgs if not p.uplink} == {"DC0_DVPG0", "keep-dvpg", "other-dv-vlan20",
                                                               "other-dv-trunk"}
    host = after.host("DC0_H0")
    assert host.vswitch("keep-sw") is not None and host.portgroup("keep-pg") is not None
    assert {v.name for v in after.vms} == {v.name for v in before.vms} | {vm.name for vm in other.vms}
    assert all(r.ok for r in backend.teardown(None))
    final = backend.inventory()
    assert {v.name for v in final.vms} == {v.name for v in before.vms}
    assert {d.name for d in final.dvses} == {d.name for d in before.dvses}
    assert {s.name for s in final.host("DC0_H0").vswitches} == {s.name for s in before.host("DC0_H0").vswitches}


def test_move_vnic_change_type_and_vlan(backend):
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    vm_a = design.vms[0]
    vm_a.vnics[1].network = "pg-all"          # move eth1 to another portgroup
    vm_a.vnics[0].type = NicType.E1000        # change the adapter type
    design.vms[2].cpus = 1
    design.switches[1].portgroups[0].vlan = 21
    plan = backend.plan(design)
    texts = [c.description for c in plan.changes]
    assert summary(plan) == [("update", "dvportgroup"), ("update", "vm"), ("update", "vm")]
    assert any("move vNIC eth1 to vnb-" in t and "all-vlans" in t for t in texts)
    results = backend.apply(plan)
    assert [r.error for r in results if not r.ok] == []
    assert backend.plan(design).empty
    inv = backend.inventory()
    nics = inv.vm("vnb-test-a").nics
    assert nics[0].type is NicType.E1000 and nics[1].network.endswith("-all-vlans")
    assert inv.dvpg("dv-vlan20").vlan == 21


def test_name_taken_by_a_foreign_object_is_a_conflict_that_blocks_only_its_change(backend):
    design = lab_design()
    design.switches[1].portgroups[1].name = "DC0_DVPG0"  # vcsim's own portgroup: the name is taken
    plan = backend.plan(design)
    conflict = next(c for c in plan.changes if c.key == "DC0/DC0_DVPG0")
    assert "conflict" in conflict.description and "not create" in conflict.description
    results = backend.apply(plan)
    failed = {r.change.key: r.error for r in results if not r.ok}
    assert set(failed) == {"DC0/DC0_DVPG0", "DC0/vnb-test-c"}
    assert failed["DC0/DC0_DVPG0"].startswith("conflict: a distributed portgroup named DC0_DVPG0 exists")
    assert failed["DC0/vnb-test-c"] == "not tried: distributed portgroup DC0_DVPG0 failed"
    assert sum(r.ok for r in results) == len(results) - 2
    inv = backend.inventory()
    assert inv.dvpg("DC0_DVPG0").managed is None and inv.dvpg("DC0_DVPG0").dvs == "DVS0", "left untouched"
    assert inv.vm("vnb-test-c") is None
    again = backend.plan(design)
    assert [c.key for c in again.changes] == ["DC0/DC0_DVPG0", "DC0/vnb-test-c"], "stable: the rest converged"


def test_standard_portgroup_change_on_vcsim_fails_with_server_reason(backend):
    """vcsim has no UpdatePortGroup (a real ESXi/vCenter changes the portgroup in place)."""
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    design.switches[0].portgroups[1].vlan = 11
    plan = backend.plan(design)
    assert [(c.op, c.kind) for c in plan.changes] == [(Op.UPDATE, "portgroup")]
    (result,) = backend.apply(plan)
    assert not result.ok and ("NotImplemented" in result.error or "MethodNotFound" in result.error
                              or "not" in result.error.lower()), result.error


def test_invalid_design_is_refused_before_anything_is_sent(backend):
    before = backend.inventory()
    design = lab_design()
    design.vms[0].vnics[0].type = NicType.VIRTIO
    design.vms[1].vnics[0].network = None
    design.hosts[0].name = "no-such-host"
    design.switches[0].portgroups[0].vlan = 5000
    with pytest.raises(Unsupported) as err:
        backend.plan(design)
    text = str(err.value)
    assert "virtio" in text and "no-such-host" in text and "on no network" in text and "5000" in text
    assert len(backend.inventory().vms) == len(before.vms)


def test_cancel_stops_between_stages(backend):
    design = lab_design()
    token = CancelToken()

    def progress(done, total, message):
        if "dvswitch" in message:
            token.cancel()

    results = backend.apply(backend.plan(design), progress, token)
    cancelled = [r for r in results if r.cancelled and r.error == "cancelled: not sent"]
    assert cancelled and all(r.change.kind in ("portgroup", "dvportgroup", "vm") for r in cancelled)
    assert backend.inventory().vm("vnb-test-a") is None
    assert all(r.ok for r in backend.apply(backend.plan(design))), "a later apply finishes the job"
    assert backend.plan(design).empty


def test_cancel_inside_a_stage_reports_what_ran(backend):
    design = lab_design()
    token = CancelToken()

    def progress(done, total, message):
        if "portgroup" in message:
            token.cancel()  # right after the first standard portgroup

    results = backend.apply(backend.plan(design), progress, token)
    done = [r.change.kind for r in results if r.ok]
    assert sorted(done) == ["dvswitch", "portgroup", "vswitch"]
    assert all(r.cancelled and r.error == "cancelled: not sent" for r in results if not r.ok)
    host = backend.inventory().host("DC0_H0")
    assert len([p for p in host.portgroups if p.name.startswith("vnb-")]) == 1


def test_vms_from_a_template(backend, vcsim):
    vcsim.govc("vm.power", "-off", "DC0_H0_VM1")
    vcsim.govc("vm.markastemplate", "DC0_H0_VM1")
    backend.settings["template"] = "DC0_H0_VM1"
    design = lab_design()
    results = backend.apply(backend.plan(design))
    assert [r.error for r in results if not r.ok] == []
    vm = backend.inventory().vm("vnb-test-a")
    # vcsim drops a clone spec's extraConfig (it copies the spec by value); the custom attribute marks it.
    assert vm.custom_marker == design.id and vm.managed == design.id
    assert [n.type for n in vm.nics] == [NicType.VMXNET3, NicType.E1000E]
    # The same vcsim bug drops the clone spec's CPU count: the next plan reconfigures that VM, then converges.
    again = backend.plan(design)
    assert [(c.kind, c.description) for c in again.changes] == [("vm", "VM vnb-test-c: 1 -> 2 CPUs")]
    assert all(r.ok for r in backend.apply(again))
    assert backend.plan(design).empty


def test_plan_data_is_plain(backend):
    """A plan carries names, not MoRefs or secrets, so it can be shown and stored."""
    plan = backend.plan(lab_design())
    text = json.dumps([dict(c.data) for c in plan.changes])
    assert "vim." not in text and backend.conn.user not in text


def test_vnic_is_never_sent_bound_to_a_missing_network(backend, vcsim):
    """vcsim crashes on such a vNIC and vCenter refuses it: apply checks the network exists right before."""
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    design.vms[0].vnics[1].network = "pg-all"
    plan = backend.plan(design)
    gone = next(p.name for p in backend.inventory().host("DC0_H0").portgroups if p.name.endswith("-all-vlans"))
    vcsim.govc("host.portgroup.remove", "-host", "DC0_H0", gone)  # someone removes it between plan and apply
    (result,) = backend.apply(plan)
    assert not result.ok and f"portgroup {gone} does not exist on DC0_H0; the vNIC was not sent" == result.error
    assert vcsim.proc.poll() is None, "vcsim is still running"
    assert backend.inventory().vm("vnb-test-a").nics[1].network.endswith("-vlan10"), "the VM was left as it was"


def test_move_vm_to_another_host_and_drop_a_dvs_member(backend, vcsim):
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    design.vms[1].host = "c1"                                     # vnb-test-b: DC0_C0_H0 -> DC0_C0_H1
    design.switches[1].members.remove("c2")
    plan = backend.plan(design)
    assert sorted(c.description for c in plan.changes) == [
        "VM vnb-test-b: move to host DC0_C0_H1", "distributed switch vnb-test-dvs: remove DC0_C0_H2"]
    results = backend.apply(plan)
    assert [r.error for r in results if not r.ok] == []
    inv = backend.inventory()
    assert inv.host_by_moid(inv.vm("vnb-test-b").host).name == "DC0_C0_H1"
    assert inv.host("DC0_C0_H2").moid not in inv.dvs("vnb-test-dvs").members
    assert backend.plan(design).empty


def test_teardown_powers_off_running_vms_first(backend, vcsim):
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    vcsim.govc("vm.power", "-on", "vnb-test-a")
    assert backend.inventory().vm("vnb-test-a").power == "poweredOn"
    assert all(r.ok for r in backend.teardown(design.id))
    assert backend.inventory().vm("vnb-test-a") is None
