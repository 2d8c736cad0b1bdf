"""End to end on a real libvirtd + QEMU (TCG) + userspace Open vSwitch, started by the fixtures inside a
network namespace of their own: the bundled KVM example deploys, every pair pinged from inside the guests
agrees with the prediction (the local lab's agreement test, run on guests), iperf3 runs inside them, a
SIGKILL half-way through a deploy is cleaned by the next apply, and teardown leaves libvirt, OVS and the
kernel exactly as they were, the objects vnetbench did not make included.

The guests boot once per module and are shared by the tests (TCG is slow); the tests run in file order.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kvm_deploy import deployed_design, lab_agreement
from kvmhost import listing

from vnetbench.backends import BackendError
from vnetbench.model import Index, VmRole, load, save
from vnetbench.predict import Engine

pytestmark = [pytest.mark.lab, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "resources" / "examples" / "kvm-nic-models.vnet.yaml"
SEED_001 = ROOT / "resources" / "examples" / "kvm-tap-macvtap.vnet.yaml"


def _artifacts() -> Path:
    path = Path(os.environ.get("VNETBENCH_ARTIFACTS") or ROOT / "test-artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def deployed(kvm_host):
    yield from deployed_design(kvm_host, load(EXAMPLE))


def test_the_example_deploys_and_plans_nothing_again(deployed):
    backend, design, results = deployed
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    assert backend.plan(design).empty
    assert {s.state.value for s in backend.status(design).values()} == {"deployed"}


def test_every_pair_agrees_with_the_prediction(deployed):
    backend, design, _ = deployed
    lab = lab_agreement()
    engine = Engine(design)
    endpoints = {vm.id: backend.endpoint(design, vm.id) for vm in design.vms if vm.role is VmRole.VM}
    names = {i: e.name for i, e in endpoints.items()}
    jobs = []
    for src, src_ep in endpoints.items():
        for dst, dst_ep in endpoints.items():
            if src != dst:
                p = engine.predict(src, dst, "icmp")
                reach = p.verdict in lab.REACHABLE
                addresses = [lab._target(p, dst_ep)] if reach else [dst_ep.address(n) for n in dst_ep.addresses]
                jobs.append({"src_ep": src_ep, "src": src, "dst": dst, "verdict": p.verdict, "addresses": addresses})
    rows = [{"src": names[j["src"]], "dst": names[j["dst"]], "predicted": j["verdict"].value,
             "guests": "connect" if ok else "no", "agree": ok == (j["verdict"] in lab.REACHABLE)}
            for j, ok in lab._ping_all(jobs)]
    pairs = [("vm-virtio-a", "vm-virtio-b"), ("vm-e1000-a", "vm-e1000-b"), ("vm-ovs-a", "vm-virtio-a"),
             ("vm-ovs-a", "vm-ovs-b")]
    iperf = [lab._iperf(backend, design, engine, src, dst, names) for src, dst in pairs]
    table = [f"{'from':10} {'to':10} {'predicted':20} {'guests':8} agree"]
    table += [f"{r['src']:10} {r['dst']:10} {r['predicted']:20} {r['guests']:8} {'yes' if r['agree'] else 'NO'}"
              for r in rows]
    table += ["", "iperf3 (TCP/5201, 1 s, inside the guests):"]
    table += [f"{r['src']:10} {r['dst']:10} {r['predicted']:20} {r['mbps']} Mbit/s (pNIC {r['pnic_mbps'] or '-'})"
              for r in iperf]
    print("\n" + "\n".join(table))
    (_artifacts() / "kvm-agreement.txt").write_text("\n".join(table) + "\n")
    (_artifacts() / "kvm-agreement.json").write_text(json.dumps({"pings": rows, "iperf3": iperf}, indent=2))
    assert len(rows) == 30
    assert [r for r in rows if not r["agree"]] == []
    assert [r for r in iperf if not r["agree"] or not r["mbps"]] == []
    for r in iperf:
        if r["pnic_mbps"]:
            assert r["mbps"] <= r["pnic_mbps"] * 1.05, f"{r}: faster than the pNIC it crosses"


def test_verify_confirms_every_pair_and_its_observed_path_in_the_guests(deployed):
    """``vnetbench verify`` on the real guests: every pair's reachability and largest packet agree with the
    prediction, and so does its observed path: the pNICs' wire counters on the host count the bursts of the
    pairs predicted through the physical switch (ovs-a to the br0 guests) and no other."""
    from vnetbench.measure.verify import Outcome, Verifier, plan_pairs

    backend, design, _ = deployed
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    result = Verifier(backend, design, plans, scope, parallel=8, limits=left).run()
    print("\n" + "\n".join(result.lines()))
    assert result.contradictions == 0, [(c.src_name, c.dst_name, [x.detail for x in c.contradictions])
                                        for c in result.cells if c.contradictions]
    assert all(any(ch.what == "icmp" and ch.outcome is Outcome.CONFIRMED for ch in c.checks) for c in result.cells)
    assert not any(x.startswith("observed paths") for x in result.limits), result.limits
    delivered = [c for c in result.cells if c.verdict.delivered]
    assert all(any(ch.what == "path" and ch.outcome is Outcome.CONFIRMED for ch in c.checks) for c in delivered)
    crossing = [c for c in delivered if c.predicted_pnics]
    assert crossing and all(c.observed_pnics for c in crossing), [(c.src_name, c.dst_name) for c in crossing]
    assert all(c.observed_pnics == () for c in delivered if not c.predicted_pnics)


def test_vnetbench_measure_compares_virtio_and_e1000_in_the_guests(deployed, kvm_host, tmp_path):
    """The CLI's measure engine, unchanged, on two guest pairs back to back (A/B), stored in the run store."""
    argv = [sys.executable, "-m", "vnetbench", "measure", str(EXAMPLE), "--backend", "kvm", "--test", "throughput",
            "--duration", "3", "--from", "virtio-a", "--to", "virtio-b", "--versus-from", "e1000-a",
            "--versus-to", "e1000-b", "--json",
            *(x for k, v in kvm_host.settings(accel="qemu").items() for x in ("--set", f"{k}={v}"))]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "VNETBENCH_DATA_DIR": str(tmp_path)})
    assert proc.returncode in (0, 1), proc.stderr          # 1: a rate far from the estimate, on a busy machine
    runs = json.loads(proc.stdout)
    assert [r["run"]["status"] for r in runs] == ["ok", "ok"], proc.stderr
    assert [r["comparison"]["verdict"] for r in runs] == ["in-host", "in-host"]
    assert all(r["run"]["id"] for r in runs), "both runs are stored"


def test_import_reads_the_real_host(deployed):
    backend, design, _ = deployed
    topo = backend.import_design()
    ovs = next(s for s in topo.switches if s.name == "ovs0")
    assert ovs.kind.value == "ovs" and {p.vlan for p in ovs.portgroups} == {10, 20}
    vms = {v.name: v for v in topo.vms}
    assert [n.type.value for n in vms["fw01"].vnics] == ["e1000", "vlance"]
    assert vms["ovs-b"].vnics[0].mac == "52:54:00:4b:00:32"
    assert "admins-vm" in vms


def test_probes_report_missing_programs_and_stop_on_request(deployed):
    backend, design, _ = deployed
    ep = backend.endpoint(design, "vm-virtio-a")
    assert ep.has_program("iperf3") and ep.has_program("sockperf") and not ep.has_program("netperf")
    cmd = ep.start(["ping", "-i", "0.2", "127.0.0.1"])
    first = next(iter(cmd.lines()))
    assert "127.0.0.1" in first
    cmd.terminate()
    assert cmd.wait(10) != 0
    with pytest.raises(BackendError):
        backend.endpoint(design, "vm-fw01-not-there")


def test_teardown_leaves_libvirt_ovs_and_the_kernel_as_before(deployed, kvm_host):
    backend, design, _ = deployed
    results = backend.teardown(design.id)
    assert results and all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert listing(kvm_host) == kvm_host.before


def test_the_seed_001_example_agrees_with_the_prediction(kvm_host):
    """tap + bridge, macvtap VEPA without and with hairpin, and a physical host, deployed and probed by the
    local lab's agreement test itself (it deploys, pings every pair, runs iperf3, and tears down)."""
    from vnetbench_kvm import KvmBackend

    backend = KvmBackend(kvm_host.settings(accel="qemu"))
    backend.connect()
    try:
        rows, iperf = lab_agreement()._agreement(backend, load(SEED_001), SEED_001.name)
    finally:
        backend.close()
    table = [f"{r['src']:8} {r['dst']:8} {r['predicted']:20} {r['lab']:9} {'yes' if r['agree'] else 'NO'}"
             for r in rows] + [f"iperf3 {r['src']} -> {r['dst']}: {r['mbps']} Mbit/s" for r in iperf]
    print("\n" + "\n".join(table))
    (_artifacts() / "kvm-agreement-seed001.txt").write_text("\n".join(table) + "\n")
    assert len(rows) == 42
    assert {(r["src"], r["dst"], r["predicted"]) for r in rows} >= {
        ("raw-a", "raw-b", "unreachable"), ("vepa-a", "vepa-b", "via-physical"), ("tap-a", "tap-b", "in-host"),
        ("raw-a", "loadgen", "via-physical")}
    assert [r for r in rows if not r["agree"]] == []
    assert iperf and [r for r in iperf if not r["agree"]] == []
    assert listing(kvm_host) == kvm_host.before


def test_a_deploy_killed_half_way_is_cleaned_by_the_next_apply(kvm_host, tmp_path):
    from vnetbench_kvm import KvmBackend

    design = load(EXAMPLE)
    keep = {"virtio-a", "virtio-b"}
    small = copy.deepcopy(design)
    small.vms = [vm for vm in small.vms if vm.name in keep]
    small.switches = [sw for sw in small.switches if sw.name == "br0"]
    small.links = [link for link in small.links if link.a == "pnic-kvm01-eth0"]
    path = tmp_path / "small.vnet.yaml"
    save(small, path)
    settings = kvm_host.settings(accel="qemu")
    argv = [sys.executable, "-m", "vnetbench", "deploy", str(path), "--backend", "kvm",
            *(x for k, v in settings.items() for x in ("--set", f"{k}={v}"))]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        if "create domain" in line:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    backend = KvmBackend(settings)
    backend.connect()
    try:
        plan = backend.plan(small)
        assert not plan.empty
        results = backend.apply(plan)
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        assert backend.plan(small).empty
        assert backend.endpoint(small, "vm-virtio-a").has_program("iperf3")
        assert all(r.ok for r in backend.teardown(small.id))
    finally:
        backend.close()
    assert listing(kvm_host) == kvm_host.before
    assert Index(small).get("vm-virtio-a") is not None
