"""Deploy, change one field, deploy, deploy: the last plan is empty, for every kind of field vcsim can change.

vSphere (and vcsim) move an edited or re-added adapter to the end of the device list, so vNICs are matched by
identity, not position; a change touches only the vNIC that changed. Standard portgroup VLAN and security
changes are left out: vcsim has no ``UpdatePortGroup`` (``test_vsphere_deploy`` shows its refusal); the
distributed portgroup cases cover the same planning.
"""

from __future__ import annotations

import pytest
from vnetbench.backends.contract import Unsupported
from vnetbench.model import NicType, Security
from vnetbench.model.validate import validate

from vsphere_designs import lab_design

pytestmark = pytest.mark.slow


def change_vlan(design):
    design.switches[1].portgroups[0].vlan = 21


def change_security(design):
    design.switches[1].portgroups[1].security = Security(promiscuous=True, forged_transmits=True)


def change_type(design):
    design.vms[0].vnics[0].type = NicType.E1000  # was vlance: the example


def change_network(design):
    design.vms[0].vnics[0].network = "pg-all"


def change_mac(design):
    design.vms[0].vnics[0].mac = "00:50:56:3f:00:42"


def change_connected(design):
    design.vms[0].vnics[0].connected = False


def devices(backend, name):
    return {n.key: (n.mac, n.type) for n in backend.inventory().vm(name).nics}


@pytest.mark.parametrize("change", [change_vlan, change_security, change_type, change_network, change_mac,
                                    change_connected])
def test_one_field_changed_settles_in_one_apply(backend, change):
    design = lab_design()
    design.vms[0].vnics[0].type = NicType.VLANCE
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert backend.plan(design).empty
    before = devices(backend, "vnb-test-a")
    untouched = next(n for n in backend.inventory().vm("vnb-test-a").nics if n.network.endswith("-vlan10"))

    change(design)
    plan = backend.plan(design)
    assert len(plan.changes) == 1, [c.description for c in plan.changes]
    assert "eth1" not in plan.changes[0].description, "the untouched vNIC is not in the plan"
    results = backend.apply(plan)
    assert [r.error for r in results if not r.ok] == []
    again = backend.plan(design)
    assert again.empty, [c.description for c in again.changes]

    after = devices(backend, "vnb-test-a")
    assert after[untouched.key] == before[untouched.key], "the untouched vNIC kept its device and MAC"
    assert len(after) == 2
    if change is change_type:  # vcsim gives the new device the freed key (and so the same MAC)
        assert sorted(t.value for _, t in after.values()) == ["e1000", "e1000e"]
    else:
        assert set(after) == set(before), "every device stayed"


def test_twin_adapters_keep_their_identity(backend):
    """Two e1000s on one portgroup: a new VM's devices are in design order; the first edit records which
    device is which vNIC, so later edits move each vNIC's own device wherever vSphere put it."""
    design = lab_design()
    a = design.vms[0]
    a.vnics[0].type, a.vnics[0].network = NicType.E1000, "pg-10"
    a.vnics[1].type = NicType.E1000
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    first, second = sorted(n.key for n in backend.inventory().vm("vnb-test-a").nics)
    a.vnics[1].network = "pg-all"
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    have = backend.inventory().vm("vnb-test-a")
    assert have.nic_keys == {"a0": first, "a1": second}, "recorded in the edit's own spec"
    assert {n.key: n.network.rsplit("-", 1)[-1] for n in have.nics} == {first: "vlan10", second: "vlans"}
    a.vnics[0].network = "pg-none"
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    nics = {n.key: n.network for n in backend.inventory().vm("vnb-test-a").nics}
    assert nics[first].endswith("-untagged") and nics[second].endswith("-all-vlans")
    a.vnics[0].type = NicType.E1000E  # a new device for a0: its key is recorded after the apply
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    have = backend.inventory().vm("vnb-test-a")
    assert have.nic_keys["a1"] == second and have.nic_keys["a0"] in {n.key for n in have.nics}
    assert next(n for n in have.nics if n.key == have.nic_keys["a0"]).type is NicType.E1000E
    assert backend.plan(design).empty


def test_flexible_is_pcnet32_as_on_the_platform(backend, vcsim):
    design = lab_design()
    design.vms[0].vnics[0].type = NicType.FLEXIBLE
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert "VirtualPCNet32" in vcsim.govc("device.info", "-vm", "vnb-test-a", "ethernet-*")
    design.vms[0].vnics[0].type = NicType.VLANCE
    assert backend.plan(design).empty, "vlance and flexible are one device on vSphere"
    imported = backend.import_design()
    vm = next(v for v in imported.vms if v.name == "vnb-test-a")
    assert vm.vnics[0].type is NicType.FLEXIBLE


def test_sriov_is_a_virtual_function_of_its_pnic(backend, vcsim):
    design = lab_design()
    nic = design.vms[0].vnics[1]
    nic.type, nic.physical_function = NicType.SRIOV, "h0-vmnic1"
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    assert backend.plan(design).empty
    info = vcsim.govc("device.info", "-vm", "vnb-test-a", "ethernet-*")
    assert "VirtualSriovEthernetCard" in info
    have = next(n for n in backend.inventory().vm("vnb-test-a").nics if n.type is NicType.SRIOV)
    assert have.pf == backend.inventory().host("DC0_H0").pnic("vmnic1").pci and have.network.endswith("-vlan10")
    imported = backend.import_design()
    vnic = next(n for n in next(v for v in imported.vms if v.name == "vnb-test-a").vnics if n.type is NicType.SRIOV)
    assert vnic.physical_function == f"{backend.inventory().host('DC0_H0').moid}-vmnic1"
    assert [p.message for p in validate(imported) if p.severity == "error"] == []

    nic.physical_function = "h0-vmnic0"  # another pNIC's virtual function: a new adapter, in one apply
    plan = backend.plan(design)
    pci = {p.device: p.pci for p in backend.inventory().host("DC0_H0").pnics}
    assert [c.description for c in plan.changes] == [
        f"VM vnb-test-a: vNIC eth1: SR-IOV function of {pci['vmnic1']} -> {pci['vmnic0']}"]
    assert all(r.ok for r in backend.apply(plan))
    assert backend.plan(design).empty

    nic.physical_function = "c0-vmnic0"
    with pytest.raises(Unsupported, match="physical_function is not a pNIC of its host"):
        backend.plan(design)
