"""Private VLANs on Open vSwitch, on a real libvirtd + QEMU (TCG) + userspace Open vSwitch (the fixtures of
conftest.py): ``resources/examples/kvm-ovs-private-vlans.vnet.yaml`` deploys two hosts' OVS switches whose map
(200 promiscuous, 201 isolated, 202 community) becomes OpenFlow rules (``desired_pvlan``, ``pvlan_flows``).
Every ordered pair of guests is pinged and must agree with the prediction: isolated guests apart, even on one
portgroup, a community across the hosts, the promiscuous guest reaching every role, and the isolated guest
behind the port that forgets VLAN 201 cut off. The flows carry vnetbench's cookie, a second plan is empty, import
gives the map back, a foreign flow on another bridge is never touched, and teardown leaves the host as before.

The guests boot once for the module (TCG is slow) and the tests share them, in file order."""

from __future__ import annotations

from pathlib import Path

import pytest

from kvm_deploy import deployed_design, disagreements, ping_every_pair
from kvmhost import listing

from vnetbench.model import load
from vnetbench.predict import Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-ovs-private-vlans.vnet.yaml"
FOREIGN_FLOW = "cookie=0x1234,priority=7,dl_type=0x88b5,actions=drop"


@pytest.fixture(scope="module")
def deployed(kvm_host):
    kvm_host.run(["ovs-ofctl", "add-flow", "ovs-admin", FOREIGN_FLOW])       # someone else's flow
    yield from deployed_design(kvm_host, load(EXAMPLE))


def _our_flows(kvm_host, bridge: str) -> list[str]:
    from vnetbench_kvm.pvlan_flows import mark_of

    lines = kvm_host.run(["ovs-ofctl", "dump-flows", bridge]).stdout.splitlines()
    return [line for line in lines if "cookie=" in line
            and mark_of(int(line.split("cookie=")[1].split(",")[0], 16)) is not None]


def test_the_private_vlans_deploy_as_marked_flows_and_plan_nothing_again(deployed, kvm_host):
    backend, design, results = deployed
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    wants = [w for w in backend.desired(design).wants.values() if w.kind == "flows"]
    assert len(wants) == 2
    for w in wants:
        flows = _our_flows(kvm_host, w.spec["bridge"])
        assert len(flows) == len(w.spec["flows"]), flows
        assert all(f"cookie={0x766E << 48 | int(w.mark, 16):#x}" in f for f in flows), flows
    assert backend.plan(design).empty


def test_every_pair_of_guests_agrees_with_the_prediction(deployed):
    backend, design, _ = deployed
    ids = [vm.id for vm in design.vms]
    seen = ping_every_pair(backend, design, ids)
    assert len(seen) == 30
    assert disagreements(seen) == {}
    assert seen[("vm-web01", "vm-web02")] == (Verdict.UNREACHABLE, False)       # isolated <-> isolated
    assert seen[("vm-web02", "vm-web01")] == (Verdict.UNREACHABLE, False)
    assert seen[("vm-db01", "vm-backup01")] == (Verdict.IN_HOST, True)         # community <-> promiscuous
    assert seen[("vm-backup01", "vm-db01")] == (Verdict.IN_HOST, True)
    assert seen[("vm-web01", "vm-backup01")] == (Verdict.IN_HOST, True)        # isolated -> promiscuous
    assert seen[("vm-db01", "vm-db02")] == (Verdict.VIA_PHYSICAL, True)        # a community across hosts
    assert seen[("vm-backup01", "vm-db02")] == (Verdict.VIA_PHYSICAL, True)
    assert seen[("vm-backup01", "vm-web03")] == (Verdict.UNREACHABLE, False)   # Gi1/0/2 forgets VLAN 201


def test_import_gives_back_each_switchs_private_vlan_map(deployed):
    backend, design, _ = deployed
    switches = {sw.name: sw for sw in backend.import_design().switches}
    for sw in design.switches:
        assert switches[sw.name].pvlans == sw.pvlans
        assert {(pg.name, pg.pvlan) for pg in switches[sw.name].portgroups} == \
            {(pg.name, pg.pvlan) for pg in sw.portgroups}


def test_teardown_removes_the_flows_and_leaves_the_host_as_before(deployed, kvm_host):
    backend, design, _ = deployed
    assert all(r.ok for r in backend.teardown(design.id))
    assert listing(kvm_host) == kvm_host.before
    assert FOREIGN_FLOW.split(",")[0] in kvm_host.run(["ovs-ofctl", "dump-flows", "ovs-admin"]).stdout
