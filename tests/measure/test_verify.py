"""The verify engine without a lab: which pairs it picks, which flows the rules name, a backend that reads no
counters (endpoints on loopback), and what the report and the CSV/JSON say of a stored verification."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from loopback import LoopbackEndpoint

from vnetbench.backends import Backend, BackendError, Capabilities, ProbeCapabilities
from vnetbench.export import Options, export
from vnetbench.measure.store import RunStore
from vnetbench.measure.verify import Outcome, Verification, Verifier, choose_pairs, plan_pairs, rule_flows
from vnetbench.model import SwitchKind, load
from vnetbench.predict import Engine

ROOT = Path(__file__).resolve().parents[2]
FOUR_CASES = ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"


def test_small_designs_get_every_ordered_pair_large_ones_a_pair_per_class_pair():
    pairs, scope = choose_pairs(["a", "b", "c"], [0, 0, 1], all_pairs_up_to=3)
    assert len(pairs) == 6 and all(n == 1 for *_, n in pairs) and scope == "every ordered pair (3 endpoints)"
    pairs, scope = choose_pairs(["a", "b", "c", "d"], [0, 0, 1, 1], all_pairs_up_to=3)
    # class 0 to itself, 0 to 1, 1 to 0, 1 to itself: four pairs standing for all twelve
    assert [(s, d) for s, d, _ in pairs] == [("a", "b"), ("a", "c"), ("c", "a"), ("c", "d")]
    assert sum(n for *_, n in pairs) == 12
    assert "one representative per pair of endpoint classes (2 classes of 4 endpoints" in scope
    pairs, _ = choose_pairs(["a", "b", "c"], [0, 1, 1], all_pairs_up_to=2)
    assert ("a", "a", 0) not in pairs and sum(n for *_, n in pairs) == 6   # a lone endpoint has no pair in class


def test_the_flows_probed_are_the_ports_the_rules_name():
    design = load(ROOT / "resources" / "examples" / "nsx-dfw.vnet.yaml")
    flows, left = rule_flows(design)
    assert ("tcp", 443) in flows and left == []
    flows, left = rule_flows(design, limit=0)
    assert flows == [] and left and "tcp/443" in left[0]


class _NoCounters(Backend):
    """A backend that runs probes but reads no pNIC counters (as a backend without host access)."""

    name = "nocounters"
    title = "No counters"
    capabilities = Capabilities(switch_kinds=frozenset(SwitchKind))
    probe_capabilities = ProbeCapabilities(counters=False, limits="the test backend reads no pNIC counters")

    def plan(self, design):
        raise BackendError("the test backend only runs probes")

    apply = teardown = status = plan

    def endpoint(self, design, vm_id):
        if vm_id == "vm-bak01":
            raise BackendError("bak01 is not deployed here", "deploy it")
        return LoopbackEndpoint(vm_id)


@pytest.mark.skipif(shutil.which("ping") is None, reason="needs ping")
def test_a_backend_without_counters_still_checks_reachability_and_mtu_and_says_what_it_left_out():
    design = load(FOUR_CASES)
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    progress = []
    result = Verifier(_NoCounters(), design, plans, scope, parallel=4,
                      progress=lambda done, total, msg: progress.append((done, total))).run()
    assert any("observed paths: the test backend reads no pNIC counters" in x for x in result.limits)
    web = result.cell("vm-web01", "vm-web02")
    checks = {c.what: c for c in web.checks}
    assert checks["icmp"].outcome is Outcome.CONFIRMED and "path" not in checks
    assert web.observed_pnics is None
    # loopback carries 1501 bytes: the probe a byte over the predicted limit gets through, and that is said
    assert checks["1501-byte packet"].outcome is Outcome.CONTRADICTED
    assert "predicted one byte over 1500 to be dropped at web01/eth0 (MTU 1500), but it got through" \
        == checks["1501-byte packet"].detail
    missing = result.cell("vm-web01", "vm-bak01")
    assert missing.outcome is Outcome.NOT_CHECKED and missing.checks[0].detail == "bak01 is not deployed here"
    assert progress and progress[-1][0] <= progress[-1][1]


def _verification() -> Verification:
    design = load(FOUR_CASES)
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, _ = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    v = Verification(design.name, "abc", "local", scope, 1_700_000_000.0, 1_700_000_005.0)
    from vnetbench.measure.verify import Cell, Check

    for plan in plans[:3]:
        v.cells.append(Cell(plan.src, plan.dst, plan.src, plan.dst, plan.icmp.verdict,
                            checks=[Check("icmp", Outcome.CONFIRMED, "in-host", "5/5 echoes answered")]))
    v.cells[1].checks.append(Check("path", Outcome.CONTRADICTED, "no pNIC", "vmnic0 counted the burst",
                                   "predicted to stay in esx01, but vmnic0 (core-sw1 Gi1/0/1) counted the burst"))
    return v


def test_a_verification_round_trips_through_the_store_csv_and_json(tmp_path):
    v = _verification()
    assert v.contradictions == 1 and ": 3 pairs, 1 contradictions" in v.headline()
    store = RunStore(tmp_path / "runs.sqlite")
    store.add_verification(v)
    back = store.verifications("abc")[0]
    assert back.to_dict() == v.to_dict()
    assert store.verifications("other") == []
    rows = v.to_csv().splitlines()
    assert rows[0].startswith("from,to,predicted,outcome,check")
    assert any("predicted to stay in esx01, but vmnic0 (core-sw1 Gi1/0/1) counted the burst" in r for r in rows)
    assert json.loads(json.dumps(v.to_dict()))["counts"] == {"confirmed": 2, "contradicted": 1, "not checked": 0}


def test_the_report_says_when_and_where_the_design_was_verified(tmp_path):
    v = _verification()
    design = load(FOUR_CASES)
    done = export(design, "report-html", tmp_path / "report.html", Options(verifications=[v]))
    html = done.path.read_text()
    assert "Verified against the deployment" in html
    assert "verified on local at" in html and ": 3 pairs, 1 contradictions" in html
    assert "predicted to stay in esx01, but vmnic0 (core-sw1 Gi1/0/1) counted the burst" in html


class _SmallNeighbourTable(_NoCounters):
    """Endpoints that share one bounded neighbour table (as the lab's namespaces share the host kernel's)."""

    def __init__(self, room):
        super().__init__()
        self.room, self.forgotten = room, 0

    def neighbour_room(self, design):
        return self.room

    def forget_neighbours(self, design):
        self.forgotten += 1


@pytest.mark.skipif(shutil.which("ping") is None, reason="needs ping")
def test_pairs_go_in_groups_of_whole_sources_whose_neighbour_entries_fit_the_table():
    design = load(FOUR_CASES)
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    backend = _SmallNeighbourTable(room=8)
    verifier = Verifier(backend, design, plans, scope, parallel=8, limits=left)
    live = [(plan, None, None, "") for plan in plans if "vm-bak01" not in (plan.src, plan.dst)]   # not deployed
    parts = verifier._parts(live)
    from vnetbench.measure.verify import _neighbours

    assert len(parts) > 1 and sum(map(len, parts)) == len(live)
    sources = [{plan.src for plan, *_ in part} for part in parts]
    assert all(not (a & b) for i, a in enumerate(sources) for b in sources[i + 1:]), "a source is split"
    for part in parts:
        held = set().union(*(_neighbours(plan.icmp) for plan, *_ in part))
        assert len(held) <= 8 or len({plan.src for plan, *_ in part}) == 1, (len(held), part)
    # web01 -> db01 is routed: web01 looks up its gateway, the gateway db01, and the replies come back that way
    routed = next(p for p in plans if (p.src, p.dst) == ("vm-web01", "vm-db01")).icmp
    found = _neighbours(routed)
    assert ("vm-web01", "vm-db01") not in found and len(found) == 4, found
    result = Verifier(backend, design, plans, scope, parallel=8, limits=left).run()
    assert backend.forgotten == len(parts) - 1
    cells = [c for c in result.cells if c.src != "vm-bak01" and c.dst != "vm-bak01"]
    assert cells and all(c.outcome is not Outcome.NOT_CHECKED for c in cells)
    assert len(result.cells) == len(plans)
    assert Verifier(_NoCounters(), design, plans, scope)._parts(live) == [live]      # no bound: one group


def test_a_pnic_that_only_counted_flooded_copies_is_not_blamed_for_where_the_echoes_went():
    """web02 -> db01 crosses vmnic0 out (VLAN 300) and back in (VLAN 301). With VLAN 301 pruned from vmnic0's
    port, core-sw1 flooded the echoes: vmnic1 counted a copy, and vmnic0 a second time. The echoes were lost
    where VLAN 301 should have left Gi1/0/1, and vmnic1 only carried copies."""
    design = load(FOUR_CASES)
    engine = Engine(design)
    verifier = Verifier(_NoCounters(), design, [], "")
    p = engine.predict("vm-web02", "vm-db01", "icmp", None)
    vmnic0, vmnic1 = "pnic-esx01-vmnic0", "pnic-esx01-vmnic1"
    assert list(p.forward.pnics) == [vmnic0, vmnic0]
    flooded = verifier._lost_at(p, Counter({vmnic0: 2, vmnic1: 1}), "the echoes")
    assert flooded == ("the echoes left through vmnic0 (core-sw1 Gi1/0/1) but never came back in through vmnic0 "
                       "(core-sw1 Gi1/0/1): core-sw1 VLAN 301 did not send them out of Gi1/0/1; "
                       "vmnic1 (core-sw1 Gi1/0/2) only counted copies a switch flooded"), flooded
    assert "prediction does not cross" not in flooded
    # without copies the counts read as before: lost on the way back in, or every crossing counted
    assert verifier._lost_at(p, Counter({vmnic0: 1}), "the echoes").endswith("did not send them out of Gi1/0/1")
    assert verifier._lost_at(p, Counter({vmnic0: 2}), "the echoes") == \
        "every predicted pNIC counted the echoes on the way there"
    # vmnic0 counted more than the copies explain: every crossing is counted, and vmnic1's copies are said too
    both = verifier._lost_at(p, Counter({vmnic0: 4, vmnic1: 1}), "the echoes")
    assert both.startswith("every predicted pNIC counted the echoes on the way there, and vmnic1"), both
