"""Ownership comes from a mark (or the ledger) alone: objects that only look like ours are never touched."""

from __future__ import annotations

import io
import sys

import pytest
from vnetbench.cli.main import main
from vnetbench.model import save
from vnetbench_vsphere import marking

from vcsim_tools import cli_args
from vsphere_designs import lab_design

pytestmark = pytest.mark.slow


def vm_names(backend, name):
    return [v for v in backend.inventory().vms if v.name == name]


def test_unmarked_vm_with_a_design_name_is_a_conflict_and_teardown_spares_it(backend, vcsim):
    vcsim.govc("vm.create", "-on=false", "-host", "DC0_H0", "-net", "VM Network", "vnb-test-a")
    (foreign,) = vm_names(backend, "vnb-test-a")
    design = lab_design()
    results = backend.apply(backend.plan(design))
    failed = {r.change.key: r.error for r in results if not r.ok}
    assert list(failed) == ["DC0/vnb-test-a"], failed
    assert failed["DC0/vnb-test-a"].startswith("conflict: a VM named vnb-test-a exists that vnetbench did not create")
    assert [v.moid for v in vm_names(backend, "vnb-test-a")] == [foreign.moid], "no duplicate was created"

    again = backend.plan(design)
    assert [(c.key, "conflict" in c.description) for c in again.changes] == [("DC0/vnb-test-a", True)]
    assert backend.status(design)["vm-a"].state == "failed"

    assert all(r.ok for r in backend.teardown(design.id))
    assert [v.moid for v in vm_names(backend, "vnb-test-a")] == [foreign.moid], "teardown spared it"
    assert vm_names(backend, "vnb-test-b") == [] and vm_names(backend, "vnb-test-c") == []
    assert all(r.ok for r in backend.teardown(None))
    assert [v.moid for v in vm_names(backend, "vnb-test-a")] == [foreign.moid], "so did teardown --all"


def test_standard_objects_named_like_ours_survive_deploy_teardown_and_all(backend, vcsim):
    design = lab_design()
    tag = marking.design_tag(design.id)
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "-vlan", "77", f"vnb-{tag}-adminpg")
    vcsim.govc("host.vswitch.add", "-host", "DC0_H0", "vnb-abcdef-otherlab")
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vnb-abcdef-otherlab", "vnb-abcdef-pg")
    plan = backend.plan(design)
    assert not [c for c in plan.changes if c.op.value == "delete"], "nothing foreign is planned away"
    assert all(r.ok for r in backend.apply(plan))
    assert backend.plan(design).empty
    listed = {d.design_id: d for d in backend.deployments()}
    assert listed[design.id].objects == 10
    assert listed["vnb-abcdef"].objects == 2 and "in no ledger here" in listed["vnb-abcdef"].detail
    assert listed[f"vnb-{tag}"].objects == 1, "the admin's vnb-<tag>-adminpg is not counted as the design's"

    def names():
        host = backend.inventory().host("DC0_H0")
        return {p.name for p in host.portgroups} | {s.name for s in host.vswitches}

    assert all(r.ok for r in backend.teardown(design.id))
    assert {f"vnb-{tag}-adminpg", "vnb-abcdef-otherlab", "vnb-abcdef-pg"} <= names()
    assert not any(n.startswith(f"vnb-{tag}-") and n != f"vnb-{tag}-adminpg" for n in names()), "ours are gone"
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert all(r.ok for r in backend.teardown(None))
    assert {f"vnb-{tag}-adminpg", "vnb-abcdef-otherlab", "vnb-abcdef-pg"} <= names(), "--all spared them too"
    assert backend.inventory().host("DC0_H0").portgroup(f"vnb-{tag}-adminpg").vlan == 77


def test_portgroup_named_like_a_designed_one_is_a_conflict_not_a_takeover(backend, vcsim):
    design = lab_design()
    taken = marking.standard_name(design.id, "vlan10")
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "-vlan", "99", taken)
    plan = backend.plan(design)
    conflict = next(c for c in plan.changes if c.key == f"DC0_H0/{taken}")
    assert "conflict" in conflict.description
    results = {r.change.key: r for r in backend.apply(plan)}
    assert results[f"DC0_H0/{taken}"].error.startswith(f"conflict: a portgroup named {taken} exists")
    assert results["DC0/vnb-test-a"].error == "not tried: portgroup vlan10 on DC0_H0/lab failed", "its VM waits"
    assert all(r.ok for k, r in results.items() if k not in (f"DC0_H0/{taken}", "DC0/vnb-test-a"))
    pg = backend.inventory().host("DC0_H0").portgroup(taken)
    assert (pg.vlan, pg.vswitch) == (99, "vSwitch0"), "the foreign portgroup was left as it was"
    assert all(r.ok for r in backend.teardown(design.id))
    assert backend.inventory().host("DC0_H0").portgroup(taken) is not None


class Terminal(io.StringIO):
    """Typed answers on a terminal."""

    def isatty(self) -> bool:
        return True


def test_teardown_all_lists_what_it_will_remove_and_asks_or_takes_yes(backend, vcsim, tmp_path, capsys,
                                                                      monkeypatch):
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    path = tmp_path / "lab.vnet.yaml"
    save(design, path)
    args = cli_args(vcsim, tmp_path)

    def vms():
        return set(vcsim.govc("find", "/", "-type", "m").split())

    deployed = vms()
    assert main(["teardown", "--all", *args]) == 2, "no terminal to ask, no --yes: refused"
    captured = capsys.readouterr()
    assert "pass --yes" in captured.err and "nothing was removed" in captured.err, captured.err
    assert captured.out.splitlines()[0] == "will remove 10 objects vnetbench created (every design's):"
    assert vms() == deployed

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert main(["teardown", "--all", *args]) == 1
    out = capsys.readouterr().out
    assert "remove these 10 objects? [y/N]" in out and out.rstrip().endswith("nothing removed"), out
    assert vms() == deployed, "answering no removes nothing"

    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    assert main(["teardown", "--all", *args]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "will remove 10 objects vnetbench created (every design's):", out
    listed = out[1:11]
    assert {line.strip() for line in listed} >= {"VM vnb-test-a", "distributed switch vnb-test-dvs",
                                                   "portgroup vlan10 on DC0_H0", "standard switch lab on DC0_H0"}
    assert out[11].endswith("applied 10 of 10 changes"), out
    assert not any("vnb-test" in vm for vm in vms())

    assert all(r.ok for r in backend.apply(backend.plan(design)))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["teardown", "--all", "--yes", *args]) == 0, "--yes removes without asking"
    assert "applied 10 of 10 changes" in capsys.readouterr().out
    assert main(["teardown", "--all", *args]) == 0
    assert capsys.readouterr().out.strip() == "nothing to remove"


def test_deploy_output_names_each_conflict_once_and_blocked_changes_by_the_designs_names(backend, vcsim, tmp_path,
                                                                                         capsys):
    design = lab_design()
    taken = marking.standard_name(design.id, "vlan10")
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "-vlan", "99", taken)
    path = tmp_path / "lab.vnet.yaml"
    save(design, path)
    assert main(["deploy", str(path), *cli_args(vcsim, tmp_path)]) == 1
    out = capsys.readouterr().out
    failed = out[out.index("failed:"):].splitlines()[1:]
    conflict = next(line for line in failed if "conflict" in line)
    assert conflict.count("exists that vnetbench did not create") == 1, conflict
    blocked = next(line for line in failed if "VM vnb-test-a" in line)
    assert blocked.endswith("not tried: portgroup vlan10 on DC0_H0/lab failed"), blocked
    assert "vnb-" not in blocked.split("not tried:")[1], "the blocked VM names the design's portgroup"
