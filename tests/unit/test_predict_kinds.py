"""Kinds are typed: a routing device's kind and a graph edge's kind are enums, walk events are dataclasses, and no
module of predict/ compares a kind with a word (issue 31)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from vnetbench.model import load
from vnetbench.predict import Engine
from vnetbench.predict.events import Event, LegWalked
from vnetbench.predict.kinds import APPLIANCES, DeviceKind, EdgeKind

ROOT = Path(__file__).resolve().parents[2]
PREDICT = ROOT / "app" / "vnetbench" / "predict"
EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))
WORDS = {str(k) for k in DeviceKind} | {str(k) for k in EdgeKind}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name.removesuffix(".vnet.yaml"))
def test_every_device_and_edge_of_a_compiled_example_has_an_enum_kind(path: Path):
    net = Engine(load(path)).network
    assert all(isinstance(d.kind, DeviceKind) for d in net.devices)
    assert all(isinstance(data["kind"], EdgeKind) for _, _, data in net.graph.edges(data=True))


def test_appliances_are_the_boxes_that_route_on_their_own_and_words_still_compare():
    assert {k for k in DeviceKind if k.appliance} == set(APPLIANCES) == {"router", "firewall", "edge"}
    assert DeviceKind.EDGE.role == "router" and DeviceKind.DLR.role == "dlr"
    assert DeviceKind("nat") is DeviceKind.NAT and EdgeKind.UPLINK == "uplink"


def test_an_explained_walk_records_typed_events():
    engine = Engine(load(ROOT / "resources" / "examples" / "esx-four-cases.vnet.yaml"))
    vms = [vm.id for vm in engine.topology.vms]
    walker = engine.walker
    walk, _, _ = walker.direction(vms[0], vms[-1], None, None, explain=True)
    assert walk.events, "an explained walk records its decisions"
    assert all(isinstance(e, Event.__args__) for e in walk.events)   # type: ignore[attr-defined]
    assert any(isinstance(e, LegWalked) for e in walk.events)


def test_no_module_of_predict_compares_a_kind_with_a_word():
    """``x.kind == "router"`` or ``data["kind"] in ("bridge", ...)`` would bypass the enums."""
    found = []
    for path in sorted(PREDICT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            kind = any(isinstance(s, ast.Attribute) and s.attr == "kind" or
                       isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Constant) and s.slice.value == "kind"
                       for s in sides)
            words = {c.value for s in sides for c in ast.walk(s) if isinstance(c, ast.Constant)} & WORDS
            if kind and words:
                found.append(f"{path.name}:{node.lineno}")
    assert not found, f"compare with DeviceKind / EdgeKind instead: {found}"
