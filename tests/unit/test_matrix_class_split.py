"""A rule edit that names a new network or a new name splits only the classes it changes a key in
(``matrix._Keys.refresh``): endpoints that answered alike until then get classes of their own, the others
keep theirs, and the matrix kept current equals a fresh one."""

from __future__ import annotations

import copy

from builders import Design, VmRole

from vnetbench.model import Document
from vnetbench.model.objects import Action, Rule
from vnetbench.predict import Engine


def _design() -> tuple[Design, object]:
    """a1, a2, a3 (one subnet), c1, c2 (another) and b, routed by a firewall that already judges."""
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0")
    net_a, net_b, net_c = d.pg(sw, "A", 11), d.pg(sw, "B", 12), d.pg(sw, "C", 13)
    for name, ip in (("a1", "10.1.0.3"), ("a2", "10.1.0.12"), ("a3", "10.1.0.13")):
        d.vm(name, h, net_a, f"{ip}/24", "10.1.0.1")
    for name, ip in (("c1", "10.3.0.11"), ("c2", "10.3.0.12")):
        d.vm(name, h, net_c, f"{ip}/24", "10.3.0.1")
    d.vm("b", h, net_b, "10.2.0.10/24", "10.2.0.1")
    fw = d.fw("fw", h, [(net_a, "10.1.0.1/24"), (net_b, "10.2.0.1/24"), (net_c, "10.3.0.1/24")],
              rules=[Rule(Action.DENY, "10.9.9.9/32", "any", name="nobody")], stateful=False, role=VmRole.FIREWALL)
    return d, fw


def _classes(engine: Engine) -> dict[str, int]:
    matrix = engine.matrix()
    return {e: int(matrix.classes[i]) for i, e in enumerate(matrix.endpoints)}


def test_a_rule_naming_a_new_network_or_name_splits_the_classes_it_changes_keys_in():
    """Each rule's smaller side is b (the endpoints it touches); the classes split are on its other side."""
    d, fw = _design()
    doc = Document(d.t)
    engine = Engine(d.t)
    doc.subscribe(engine.changed)
    before = _classes(engine)
    assert before["a1"] == before["a2"] == before["a3"] and before["c1"] == before["c2"]
    doc.insert(fw.forwarding, "rules", Rule(Action.DENY, "10.1.0.8/29", "b", name="a2-a3-to-b"), 0)
    after = _classes(engine)
    assert after["a2"] == after["a3"] != after["a1"] and after["c1"] == after["c2"]
    assert engine.matrix().verdict("a1", "b") != engine.matrix().verdict("a2", "b")
    doc.insert(fw.forwarding, "rules", Rule(Action.DENY, "b", "c2", name="b-to-c2"), 0)   # a name, no network
    after = _classes(engine)
    assert after["c1"] != after["c2"]
    assert engine.matrix().verdict("b", "c1") != engine.matrix().verdict("b", "c2")
    assert list(engine.matrix().rows()) == list(Engine(copy.deepcopy(d.t)).matrix().rows())
