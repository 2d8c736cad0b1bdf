"""Changes that may cut a host off its network: the exact requests vnetbench sends, and the separate confirmation.

vcsim cannot check these (it has no ``UpdatePortGroup`` or ``UpdateVirtualSwitch`` and reports no uplinks), so
the plan is made from a hand-built inventory that looks like a real ESXi host's, and the pyVmomi spec objects
apply hands to the server are read back from a recorder standing in for the managed objects.
"""

from __future__ import annotations

import io
import subprocess
import sys
from types import SimpleNamespace
from typing import Any

import pytest
from pyVmomi import vim
from vnetbench.backends.contract import CONFIRM_CONNECTIVITY, BackendError, Op
from vnetbench.cli.main import main
from vnetbench.model import Host, PNic, Portgroup, Security, Switch, SwitchKind, Topology, Uplink, save
from vnetbench_vsphere import marking
from vnetbench_vsphere.apply import Applier
from vnetbench_vsphere.inventory import DvsInfo, HostInfo, Inventory, PortgroupInfo, VSwitchInfo
from vnetbench_vsphere.ledger import Entry, Ledger
from vnetbench_vsphere.planner import Planner

from vcsim_tools import cli_args, cli_env, make_backend
from vsphere_designs import lab_design

DESIGN = "conn-test"


class Terminal(io.StringIO):
    """Typed answers on a terminal."""

    def isatty(self) -> bool:
        return True


class Recorder:
    """Stands in for a managed object: records each method called, with its arguments."""

    def __init__(self, **attrs: Any) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []
        self.__dict__.update(attrs)

    def __getattr__(self, method: str):
        def call(*args, **kwargs):
            self.calls.append((method, args, kwargs))
            return SimpleNamespace(_moId=f"task-{len(self.calls)}")
        return call


def design(dvs_uplink: str = "h-0") -> Topology:
    host = Host("h", "esx1", pnics=[PNic(f"h-{i}", f"vmnic{i}") for i in range(4)])
    vss = Switch("vss", "lab", SwitchKind.VSS, host="h", mtu=9000, uplinks=[Uplink("h-1"), Uplink("h-2", True)],
                 portgroups=[Portgroup("pg", "vlan10", 20)])
    vds = Switch("vds", "dvs", SwitchKind.VDS, mtu=9000, members=["h"], uplinks=[Uplink(dvs_uplink)])
    return Topology(id=DESIGN, name="connectivity", hosts=[host], switches=[vss, vds])


def real_host(network_system: Any = None) -> HostInfo:
    """An ESXi host as a real vCenter reports it: vSwitch0 on vmnic0 with the management network, and the
    design's switch and portgroup as an earlier deploy made them (MTU 1500, uplink vmnic1, VLAN 10)."""
    host = HostInfo(vim.HostSystem("host-1"), "esx1", "DC", None, None, network_system, [], 8)
    vswitch = marking.standard_name(DESIGN, "lab")
    host.vswitches = [VSwitchInfo("vSwitch0", 1500, ["vmnic0"], ["Management Network"]),
                      VSwitchInfo(vswitch, 1500, ["vmnic1"], [])]
    host.portgroups = [PortgroupInfo("Management Network", "vSwitch0", 0, Security(), ["vmnic0"], [], None),
                       PortgroupInfo(marking.standard_name(DESIGN, "vlan10"), vswitch, 10, Security(), [], [], None)]
    return host


def inventory(dvs: DvsInfo | None = None) -> Inventory:
    return Inventory(True, hosts=[real_host()], dvses=[dvs] if dvs else [])


def owned() -> dict[str, set[Entry]]:
    vswitch = marking.standard_name(DESIGN, "lab")
    return {DESIGN: {Entry("esx1", vswitch), Entry("esx1", marking.standard_name(DESIGN, "vlan10"), vswitch)}}


def our_dvs(uplinks: dict[str, list[str]]) -> DvsInfo:
    ref = Recorder(_moId="dvs-1", config=SimpleNamespace(configVersion="7"))
    return DvsInfo(ref, "dvs", "uuid-1", "DC", marking.description(DESIGN), ["host-1"], 1500, "7", uplinks)


# --- the plan marks them ------------------------------------------------------------------------------------


def test_the_plan_marks_vlan_uplink_mtu_and_pnic_moves_as_affecting_host_connectivity():
    changes = {(c.op, c.kind): c for c in Planner(design(), inventory(), owned=owned()).plan()}
    vswitch = changes[(Op.UPDATE, "vswitch")]
    assert vswitch.connectivity == "the uplinks of lab become vmnic1, vmnic2, MTU 9000"
    portgroup = changes[(Op.UPDATE, "portgroup")]
    assert portgroup.connectivity == "portgroup vlan10 on esx1: VLAN 10 -> 20", "named by the design, not vnb-<tag>-"
    new_dvs = changes[(Op.CREATE, "dvswitch")]
    assert new_dvs.connectivity == "takes vmnic0 from vSwitch0 on esx1", "the management uplink would move"
    assert "[affects host connectivity: " in str(portgroup), "the plan's line shows it"

    dvs = our_dvs({"host-1": ["vmnic3"]})
    changes = {(c.op, c.kind): c for c in Planner(design(), inventory(dvs), owned=owned()).plan()}
    edit = changes[(Op.UPDATE, "dvswitch")]
    assert edit.data["edit"] == {"esx1": ["vmnic0"]} and edit.data["add"] == {}
    assert edit.connectivity == "uplinks of esx1 become vmnic0; MTU 1500 -> 9000"


def test_harmless_changes_need_no_confirmation():
    """A security-only portgroup edit, and a new vDS on a pNIC no switch uses, cut nobody off."""
    free = design(dvs_uplink="h-3")
    free.switches[0].mtu, free.switches[0].uplinks = 1500, [Uplink("h-1")]
    free.switches[0].portgroups[0].vlan = 10
    free.switches[0].portgroups[0].security = Security(promiscuous=True)
    changes = Planner(free, inventory(), owned=owned()).plan()
    assert [(c.op.value, c.kind) for c in changes] == [("create", "dvswitch"), ("update", "portgroup")]
    assert all(c.connectivity == "" for c in changes), [c.connectivity for c in changes]


# --- the exact requests apply sends ---------------------------------------------------------------------------


def applier(tmp_path, host: HostInfo, dvs: DvsInfo | None = None, confirmed: bool = True) -> Applier:
    app = Applier(None, {CONFIRM_CONNECTIVITY: confirmed} if confirmed else {}, DESIGN,
                  Ledger("server", tmp_path / "ledger.json"))
    app.inv = Inventory(True, hosts=[host], dvses=[dvs] if dvs else [])
    return app


def planned(kind: str, op: Op = Op.UPDATE, dvs: DvsInfo | None = None):
    return next(c for c in Planner(design(), inventory(dvs), owned=owned()).plan() if (c.op, c.kind) == (op, kind))


def test_a_standard_portgroup_vlan_edit_sends_this_host_portgroup_spec(tmp_path):
    ns = Recorder()
    assert applier(tmp_path, real_host(ns))._start(planned("portgroup")) == (None, None)
    ((method, args, kwargs),) = ns.calls
    assert method == "UpdatePortGroup" and args == ()
    assert kwargs["pgName"] == marking.standard_name(DESIGN, "vlan10")
    spec = kwargs["portgrp"]
    assert isinstance(spec, vim.host.PortGroup.Specification)
    assert (spec.name, spec.vlanId, spec.vswitchName) == (kwargs["pgName"], 20, marking.standard_name(DESIGN, "lab"))
    security = spec.policy.security
    want = Security()  # the design's portgroup keeps vSphere's defaults
    assert (security.allowPromiscuous, security.macChanges, security.forgedTransmits) == (
        want.promiscuous, want.mac_changes, want.forged_transmits)
    assert spec.policy.nicTeaming is None, "a portgroup without its own order inherits the switch's"


def test_a_vswitch_uplink_and_mtu_edit_sends_this_virtual_switch_spec(tmp_path):
    ns = Recorder()
    applier(tmp_path, real_host(ns))._start(planned("vswitch"))
    ((method, _, kwargs),) = ns.calls
    assert method == "UpdateVirtualSwitch" and kwargs["vswitchName"] == marking.standard_name(DESIGN, "lab")
    spec = kwargs["spec"]
    assert isinstance(spec, vim.host.VirtualSwitch.Specification)
    assert (spec.mtu, spec.numPorts) == (9000, 128)
    assert isinstance(spec.bridge, vim.host.VirtualSwitch.BondBridge)
    assert list(spec.bridge.nicDevice) == ["vmnic1", "vmnic2"]
    order = spec.policy.nicTeaming.nicOrder
    assert (list(order.activeNic), list(order.standbyNic)) == (["vmnic1"], ["vmnic2"])


def test_a_vds_uplink_edit_sends_this_dvs_config_spec(tmp_path):
    dvs = our_dvs({"host-1": ["vmnic3"]})
    host = real_host()
    task, then = applier(tmp_path, host, dvs)._start(planned("dvswitch", dvs=dvs))
    assert then is None
    ((method, (spec,), _),) = dvs.ref.calls
    assert method == "ReconfigureDvs_Task"
    assert isinstance(spec, vim.dvs.VmwareDistributedVirtualSwitch.ConfigSpec)
    assert (spec.configVersion, spec.maxMtu) == ("7", 9000)
    (member,) = spec.host
    assert isinstance(member, vim.dvs.HostMember.ConfigSpec)
    assert (member.operation, member.host) == ("edit", host.ref)
    assert isinstance(member.backing, vim.dvs.HostMember.PnicBacking)
    assert [p.pnicDevice for p in member.backing.pnicSpec] == ["vmnic0"]


def test_a_new_vds_member_sends_its_pnics_as_uplink_backing(tmp_path):
    host = real_host()
    dvs = our_dvs({})
    change = planned("dvswitch", Op.CREATE)
    app = applier(tmp_path, host, dvs)
    app._reconfigure_dvs(dvs.ref, dict(change.data))
    ((_, (spec,), _),) = dvs.ref.calls
    (member,) = spec.host
    assert (member.operation, member.host) == ("add", host.ref)
    assert [p.pnicDevice for p in member.backing.pnicSpec] == ["vmnic0"]


def test_unconfirmed_connectivity_changes_are_not_sent(tmp_path):
    ns = Recorder()
    app = applier(tmp_path, real_host(ns), confirmed=False)
    for kind in ("portgroup", "vswitch"):
        with pytest.raises(BackendError, match="not sent: it affects host connectivity"):
            app._start(planned(kind))
    assert ns.calls == [], "nothing reached the host"


# --- the confirmation, through the CLI against vcsim -------------------------------------------------------


@pytest.mark.slow
def test_deploy_asks_for_a_separate_confirmation_of_a_vlan_edit(vcsim, memory_keyring, tmp_path, capsys,
                                                                  monkeypatch):
    """A standard portgroup's VLAN edit (vcsim cannot apply it: no UpdatePortGroup) is refused without
    ``--confirm-connectivity`` before anything is sent, and sent with it."""
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    lab = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(lab)))
    lab.switches[0].portgroups[1].vlan = 11
    path = tmp_path / "lab.vnet.yaml"
    save(lab, path)
    deploy = [sys.executable, "-m", "vnetbench", "deploy", str(path), *cli_args(vcsim, tmp_path)]
    env = cli_env(vcsim, tmp_path)

    plan = subprocess.run(deploy + ["--plan-only"], env=env, capture_output=True, text=True, timeout=120)
    assert "VLAN 10 -> 11  [affects host connectivity: " in plan.stdout, plan.stdout
    refused = subprocess.run(deploy, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2, refused.stderr
    assert "--confirm-connectivity" in refused.stderr and "nothing was changed" in refused.stderr
    assert refused.stderr.count("\n") == 1

    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    assert main(["deploy", str(path), *cli_args(vcsim, tmp_path)]) == 1, "answered no at the terminal"
    out = capsys.readouterr().out
    assert "1 change affects host connectivity (marked above): apply them? [y/N]" in out, out
    assert out.rstrip().endswith("nothing changed")
    assert "applied" not in out, "nothing was sent"

    sent = subprocess.run(deploy + ["--confirm-connectivity"], env=env, capture_output=True, text=True, timeout=120)
    assert sent.returncode == 1, sent.stderr  # vcsim has no UpdatePortGroup: the server's own refusal
    assert "MethodNotFound" in sent.stdout or "UpdatePortGroup" in sent.stdout, sent.stdout
