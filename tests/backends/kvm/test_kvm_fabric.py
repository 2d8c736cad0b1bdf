"""The fabric as admins build it, on a real libvirtd + QEMU (TCG) + userspace Open vSwitch (the fixtures of
conftest.py): ``resources/examples/kvm-bonded-vlan-filtering-bridge.vnet.yaml`` deploys a VLAN-filtering
bridge (guests on PVID 10, PVID 20 and a trunk port tagging VLAN 10 itself) whose two uplinks, balancing by IP
hash into a static port channel, become an OVS bond. Every ordered pair of guests and emulated physical hosts
is pinged and must agree with the prediction; the bonds exist on OVS in the mode the policy maps to, with both
members enabled; teardown leaves the host exactly as before.

The guests boot once for the module (TCG is slow) and the tests share them, in file order."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from kvmhost import listing

from vnetbench.model import load
from vnetbench.predict import Engine, Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-bonded-vlan-filtering-bridge.vnet.yaml"


def _agreement():
    spec = importlib.util.spec_from_file_location("lab_agreement", ROOT / "tests" / "e2e" / "test_lab_agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def deployed(kvm_host):
    from vnetbench_kvm import KvmBackend

    backend = KvmBackend(kvm_host.settings(accel="qemu"))
    backend.connect()
    design = load(EXAMPLE)
    results = backend.apply(backend.plan(design))
    yield backend, design, results
    backend.teardown(design.id)
    backend.close()


def test_the_bonded_filtering_bridge_deploys_and_plans_nothing_again(deployed):
    backend, design, results = deployed
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    assert {r.change.kind for r in results} >= {"ovs", "bond", "pnic", "domain"}
    assert backend.plan(design).empty


def test_each_segment_leaves_through_a_balance_slb_bond_of_both_uplinks(deployed, kvm_host):
    backend, design, _ = deployed
    bonds = [w for w in backend.desired(design).wants.values() if w.kind == "bond"]
    assert sorted(w.spec["tag"] for w in bonds) == [10, 20]
    ports = json.loads(kvm_host.run(["ovs-vsctl", "-f", "json", "--columns=name,bond_mode,lacp,tag,interfaces",
                                     "list", "port"]).stdout)
    by_name = {row[0]: row for row in ports["data"]}
    for w in bonds:
        name, mode, lacp, tag, interfaces = by_name[w.spec["name"]]
        assert (mode, lacp, tag) == ("balance-slb", "off", w.spec["tag"])
        assert interfaces[0] == "set" and len(interfaces[1]) == 2
        shown = kvm_host.run(["ovs-appctl", "bond/show", w.spec["name"]]).stdout
        assert "bond_mode: balance-slb" in shown
        for member in w.spec["members"]:            # both members carry traffic (a bond, not a standby)
            assert f"member {member}: enabled" in shown, shown


def test_every_pair_agrees_with_the_prediction(deployed):
    backend, design, _ = deployed
    lab, engine = _agreement(), Engine(design)
    ids = [vm.id for vm in design.vms] + [ph.id for ph in design.physical_hosts]
    endpoints = {i: backend.endpoint(design, i) for i in ids}
    jobs = []
    for src in ids:
        for dst in ids:
            if src != dst:
                p = engine.predict(src, dst, "icmp")
                dst_ep = endpoints[dst]
                jobs.append({"src_ep": endpoints[src], "src": src, "dst": dst, "verdict": p.verdict,
                             "addresses": [lab._target(p, dst_ep)] if p.verdict in lab.REACHABLE else
                             [dst_ep.address(n) for n in dst_ep.addresses]})
    seen = {(j["src"], j["dst"]): (j["verdict"], ok) for j, ok in lab._ping_all(jobs)}
    assert len(seen) == 20
    disagree = {pair: v for pair, (v, ok) in seen.items() if ok != (v in lab.REACHABLE)}
    assert disagree == {}
    # the design has every kind of answer: inside one VLAN of br0, through the bond, and VLANs kept apart
    assert {v for v, _ in seen.values()} == {Verdict.IN_HOST, Verdict.VIA_PHYSICAL, Verdict.UNREACHABLE}
    assert seen[("vm-web01", "phy-backup01")] == (Verdict.VIA_PHYSICAL, True)
    assert seen[("vm-web01", "vm-db01")] == (Verdict.UNREACHABLE, False)


def test_teardown_leaves_the_host_as_before(deployed, kvm_host):
    backend, design, _ = deployed
    assert all(r.ok for r in backend.teardown(design.id))
    assert listing(kvm_host) == kvm_host.before
