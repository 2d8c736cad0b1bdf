"""``vnetbench verify`` against the real local lab: every bundled example confirms, a broken lab contradicts.

The bundled examples the lab can build are deployed one by one and verified pair by pair: every pair is
confirmed, paths by the pNIC counters (in-host: no pNIC counted the burst; via-physical and routed: the predicted
pNICs did). Then the lab of ``esx-four-cases`` is broken on purpose, as an admin's mistake would break it, and
verify names the pairs and the hops where reality differs.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from vnetbench.backends import Unsupported
from vnetbench.cli.main import main
from vnetbench.measure.store import RunStore
from vnetbench.measure.verify import Outcome, Verifier, plan_pairs
from vnetbench.model import load
from vnetbench.predict import Engine, Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))
FOUR_CASES = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"


def _verify(backend, design):
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    return Verifier(backend, design, plans, scope, limits=left).run()


def test_every_bundled_example_deployed_confirms_every_pair_and_path(lab):
    paths_by_verdict: dict[Verdict, int] = {}
    flows = 0
    deployed, refused = [], []
    for path in EXAMPLES:
        design = load(path)
        try:
            lab.plan(design)
        except Unsupported:
            refused.append(path.name)
            continue
        lab.up(design)
        try:
            result = _verify(lab, design)
        finally:
            lab.teardown(design.id)
        deployed.append(path.name)
        bad = [(c.src_name, c.dst_name, [ch.detail for ch in c.contradictions]) for c in result.cells
               if c.outcome is not Outcome.CONFIRMED]
        assert bad == [], f"{path.name}: {bad}"
        assert result.limits == [], f"{path.name}: {result.limits}"
        for cell in result.cells:
            checks = {ch.what: ch for ch in cell.checks}
            if cell.verdict.delivered:
                assert checks["path"].outcome is Outcome.CONFIRMED, (path.name, cell.src_name, cell.dst_name)
                assert checks["largest packet"].outcome is Outcome.CONFIRMED
                assert (cell.observed_pnics == ()) == (cell.verdict in (Verdict.IN_HOST, Verdict.IN_HOST_ROUTED)) \
                    or cell.predicted_pnics == (), (path.name, cell)
                paths_by_verdict[cell.verdict] = paths_by_verdict.get(cell.verdict, 0) + 1
            flows += sum(1 for w in checks if w.startswith(("tcp/", "udp/")))
    assert "esx-four-cases.vnet.yaml" in deployed and "nsx-dfw.vnet.yaml" in deployed, deployed
    # the lab does not emulate a run-time uplink choice (IP hash over working uplinks, which the KVM example's
    # OVS bond does): these three, and no other, it refuses
    assert refused == ["esx-ip-hash-port-channel.vnet.yaml", "esx-teaming-half-lost.vnet.yaml",
                       "kvm-bonded-vlan-filtering-bridge.vnet.yaml"], refused
    assert "esx-private-vlans.vnet.yaml" in deployed, deployed
    # the lab's verdict kinds: in the host, through a pNIC switched, and routed outside the host
    assert {Verdict.IN_HOST, Verdict.IN_HOST_ROUTED, Verdict.VIA_PHYSICAL, Verdict.ROUTED_VIA_PHYSICAL} \
        <= set(paths_by_verdict), paths_by_verdict
    assert flows > 0, "no TCP/UDP flow of a rule was probed"


def test_a_pnic_link_down_is_named_where_the_echoes_stop(lab):
    design = load(FOUR_CASES)
    lab.up(design)
    from vnetbench_local.counters import pnic_ends
    from vnetbench_local.desired import desired_lab

    for ns, dev in pnic_ends(desired_lab(design))["pnic-esx01-vmnic1"]:
        subprocess.run(["ip", "-n", ns, "link", "set", dev, "down"], check=True)
    result = _verify(lab, design)
    wrong = {(c.src_name, c.dst_name): c for c in result.cells if c.outcome is Outcome.CONTRADICTED}
    # every pair to or from bak01 (the only VM behind vmnic1) and nothing else
    assert set(wrong) == {(a, b) for a in ("web01", "web02", "app01", "db01", "bak01")
                          for b in ("web01", "web02", "app01", "db01", "bak01")
                          if a != b and "bak01" in (a, b)}
    from_bak = wrong[("bak01", "web02")].contradictions[0].detail
    assert "web02 did not answer bak01" in from_bak
    assert "never left esx01 through vmnic1 (core-sw1 Gi1/0/2)" in from_bak
    routed = wrong[("db01", "bak01")].contradictions[0].detail
    assert "left through vmnic0 (core-sw1 Gi1/0/1) but never came back in through vmnic1 (core-sw1 Gi1/0/2)" \
        in routed, routed
    assert all(c.outcome is Outcome.CONFIRMED for c in result.cells if "bak01" not in (c.src_name, c.dst_name))


def test_a_vm_on_the_wrong_switch_contradicts_its_observed_path(lab):
    """web02 and bak01 plugged into each other's switch (vSwitch0 behind vmnic0, vSwitch1 behind vmnic1), both
    in VLAN 300: every pair still answers, but the pNICs count the bursts where the prediction says they do not."""
    design = load(FOUR_CASES)
    lab.up(design)
    from vnetbench_local.desired import desired_lab

    ports = {r.object_id: r.spec["b"] for r in desired_lab(design).resources.values()
             if r.kind == "veth" and r.object_id in ("vm-web02", "vm-bak01")}
    web02, bak01 = ports["vm-web02"], ports["vm-bak01"]
    subprocess.run(["ip", "-n", web02["ns"], "link", "set", web02["name"], "master", bak01["master"]], check=True)
    subprocess.run(["ip", "-n", bak01["ns"], "link", "set", bak01["name"], "master", web02["master"]], check=True)
    result = _verify(lab, design)
    cell = result.cell("vm-web01", "vm-web02")
    assert cell.outcome is Outcome.CONTRADICTED
    assert [c.what for c in cell.contradictions] == ["path"]
    assert cell.contradictions[0].detail == ("predicted to stay in esx01, but vmnic0 (core-sw1 Gi1/0/1) and "
                                             "vmnic1 (core-sw1 Gi1/0/2) counted the burst")
    assert cell.observed_pnics == ("esx01/vmnic0", "esx01/vmnic1")
    stayed = result.cell("vm-web01", "vm-bak01")
    assert stayed.contradictions[0].detail == (
        "predicted through vmnic0 (core-sw1 Gi1/0/1) and vmnic1 (core-sw1 Gi1/0/2), but they counted nothing: "
        "the burst stayed in esx01")
    assert result.cell("vm-web01", "vm-app01").outcome is Outcome.CONFIRMED
    assert all(ch.outcome is Outcome.CONFIRMED for c in result.cells for ch in c.checks if ch.what == "icmp")


def test_verify_command_exits_1_on_a_contradiction_and_stores_the_run(lab, tmp_path, monkeypatch, capsys):
    if os.geteuid() != 0:
        pytest.skip("needs root")
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(lab.state_dir))
    monkeypatch.setenv("VNETBENCH_LAB_MODE", "root")
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    design = load(FOUR_CASES)
    lab.up(design)
    out = tmp_path / "verified.json"
    assert main(["verify", str(FOUR_CASES), "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert "every ordered pair (5 endpoints)" in printed.err
    assert "verified on local at" in printed.out and ": 20 pairs, 0 contradictions" in printed.out
    assert json.loads(out.read_text())["counts"]["confirmed"] == 20

    from vnetbench_local.counters import pnic_ends
    from vnetbench_local.desired import desired_lab

    for ns, dev in pnic_ends(desired_lab(design))["pnic-esx01-vmnic1"]:
        subprocess.run(["ip", "-n", ns, "link", "set", dev, "down"], check=True)
    csv_out = tmp_path / "broken.csv"
    assert main(["verify", str(FOUR_CASES), "-o", str(csv_out)]) == 1
    assert "8 contradictions" in capsys.readouterr().out
    assert "never left esx01 through vmnic1" in csv_out.read_text()
    stored = RunStore(tmp_path / "data" / "runs.sqlite").verifications()
    assert [v.contradictions for v in stored] == [8, 0]
    assert stored[0].cell("vm-bak01", "vm-web01").verdict is Verdict.VIA_PHYSICAL   # the prediction at the time


def test_a_vlan_removed_from_a_physical_port_contradicts_exactly_the_pairs_that_cross_it(lab):
    """VLAN 301 pruned from core-sw1 Gi1/0/1 (vmnic0's port) behind the lab's back, as an admin editing the
    trunk would: db01 (the only VM in VLAN 301, behind vmnic0) loses every pair, and nothing else changes."""
    design = load(FOUR_CASES)
    lab.up(design)
    from vnetbench_local.desired import desired_lab
    from vnetbench_local.names import ifname

    switch_end = ifname("p", "pnic-esx01-vmnic0", 301)        # VLAN 301 of vmnic0, on the switch's side
    ends = [r.spec["b"] for r in desired_lab(design).resources.values()
            if r.kind == "veth" and r.spec["b"].get("name") == switch_end]
    assert len(ends) == 1, "the lab carries VLAN 301 on vmnic0's port"
    subprocess.run(["ip", "-n", ends[0]["ns"], "link", "set", switch_end, "nomaster"], check=True)
    result = _verify(lab, design)
    wrong = {(c.src_name, c.dst_name): c for c in result.cells if c.outcome is Outcome.CONTRADICTED}
    names = ("web01", "web02", "app01", "db01", "bak01")
    assert set(wrong) == {(a, b) for a in names for b in names if a != b and "db01" in (a, b)}, sorted(wrong)
    for pair, cell in wrong.items():
        detail = cell.contradictions[0].detail
        assert f"{pair[1]} did not answer {pair[0]}" in detail, detail
        assert "vmnic0 (core-sw1 Gi1/0/1)" in detail, detail
    print("\n".join(f"{a} -> {b}: {c.contradictions[0].detail}" for (a, b), c in sorted(wrong.items())))
    # the echoes routed into VLAN 301 stop where core-sw1 should send them out of Gi1/0/1 to db01, whichever
    # pNIC they left through; a pNIC that only counted copies core-sw1 flooded is said to, never blamed
    for src in ("web01", "web02", "app01", "bak01"):
        to_db = wrong[(src, "db01")].contradictions[0].detail
        assert "but never came back in through vmnic0 (core-sw1 Gi1/0/1): core-sw1 VLAN 301 did not send them " \
               "out of Gi1/0/1" in to_db, to_db
        assert to_db.split("did not send them out of Gi1/0/1")[1] in (
            "", "; vmnic1 (core-sw1 Gi1/0/2) only counted copies a switch flooded"), to_db
    assert not [c for c in wrong.values() if "the prediction does not cross" in c.contradictions[0].detail]
    to_db = wrong[("web01", "db01")].contradictions[0].detail
    assert "the echoes left through vmnic0 (core-sw1 Gi1/0/1) but never came back in" in to_db, to_db
    # db01's own lookup of its gateway gets no answer in VLAN 301 (or, already failed, is not sent again)
    from_db = wrong[("db01", "web01")].contradictions[0].detail
    assert from_db.endswith(("the address lookup (ARP) left through vmnic0 (core-sw1 Gi1/0/1) and got no answer in "
                             "core-sw1 VLAN 301", "never left esx01 through vmnic0 (core-sw1 Gi1/0/1)")), from_db
    assert all(c.outcome is Outcome.CONFIRMED for c in result.cells if "db01" not in (c.src_name, c.dst_name))


def test_the_lab_bounds_and_forgets_the_neighbour_entries_its_namespaces_share_with_the_host(lab):
    """All namespaces share the host kernel's ARP table (``gc_thresh3`` entries): the lab gives verify a share
    of it, and drops what its VMs learned (not the static entries) so the next group of pairs has room."""
    design = load(FOUR_CASES)
    lab.up(design)
    bound = int(Path("/proc/sys/net/ipv4/neigh/default/gc_thresh3").read_text())
    assert lab.neighbour_room(design) == int(bound * 0.75)
    web01, web02 = lab.endpoint(design, "vm-web01"), lab.endpoint(design, "vm-web02")
    cmd = web01.start(["ping", "-c", "1", "-W", "2", web02.address()])
    assert cmd.wait(5) == 0
    subprocess.run(["ip", "-n", web01.ns, "neigh", "replace", "10.30.0.99", "lladdr", "02:00:00:00:00:99",
                    "dev", "eth0", "nud", "permanent"], check=True)

    def entries(ns):
        return subprocess.run(["ip", "-n", ns, "neigh", "show"], capture_output=True, text=True,
                              check=True).stdout

    assert web02.address() in entries(web01.ns) and "10.30.0.99" in entries(web01.ns)
    lab.forget_neighbours(design)
    assert web02.address() not in entries(web01.ns) and web01.address() not in entries(web02.ns)
    assert "10.30.0.99" in entries(web01.ns), "a static entry is the design's, not learned"
