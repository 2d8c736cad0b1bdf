"""Private VLANs on OVS against libvirt's in-memory test driver (no host side): the map travels in the OVS
network's mark (``xml.read_pvlans``), a second plan is empty, and import gives back each switch's map with its
portgroups on their secondaries. The flows themselves need a real OVS: test_kvm_pvlan.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from vnetbench.model import load
from vnetbench.model.validate import validate
from vnetbench_kvm import KvmBackend

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-ovs-private-vlans.vnet.yaml"


@pytest.fixture
def backend():
    b = KvmBackend({"uri": "test:///default"})
    b.connect()
    yield b
    b.teardown()
    b.close()


def test_import_gives_back_each_ovs_switchs_private_vlan_map(backend):
    design = load(EXAMPLE)
    results = backend.apply(backend.plan(design))
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    assert backend.plan(design).empty
    topo = backend.import_design()
    switches = {s.name: s for s in topo.switches}
    for sw in design.switches:
        got = switches[sw.name]
        assert got.pvlans == sw.pvlans
        assert {(pg.name, pg.pvlan) for pg in got.portgroups} == {(pg.name, pg.pvlan) for pg in sw.portgroups}
    imported_nics = {v.name: v.vnics[0].network for v in topo.vms if v.name in {vm.name for vm in design.vms}}
    web = next(pg.id for pg in switches["ovs-kvm01"].portgroups if pg.name == "Web")
    assert imported_nics["web01"] == web
    assert not [p for p in validate(topo) if "private VLAN" in p.message and p.severity == "error"]
