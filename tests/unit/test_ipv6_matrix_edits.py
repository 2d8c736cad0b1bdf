"""Edits of a dual-stack or IPv6 design keep the IPv6 matrix incremental: its relabelled copy
(``predict/relabel.py``) follows every edit that names no IPv6 network it has no label for, so the matrix is
updated like an IPv4 one's; whatever path an edit takes, the matrix equals a fresh engine's."""

from __future__ import annotations

import copy
import random

import pytest
from random_designs import random_design, random_rule_design
from test_dual_stack import _mapped, dual_stack
from test_predict_matrix import _random_edit

from vnetbench import resources_dir
from vnetbench.model import Document, load
from vnetbench.model.objects import Action, DfwRule, Rule
from vnetbench.predict import Engine
from vnetbench.predict import relabel as relabel_module

DUAL = resources_dir() / "examples" / "esx-dual-stack.vnet.yaml"


@pytest.fixture()
def relabellings(monkeypatch) -> list[int]:
    """Counts the relabelled copies made from here on."""
    made: list[int] = []
    real = relabel_module.Relabelling.__init__

    def counted(self, topology):  # noqa: ANN001, ANN202
        made.append(1)
        real(self, topology)
    monkeypatch.setattr(relabel_module.Relabelling, "__init__", counted)
    return made


def fresh_rows(t, fam: int) -> list:  # noqa: ANN001 - a Topology
    return list(Engine(copy.deepcopy(t), fam).matrix().rows())


def test_vnic_and_rule_edits_naming_known_networks_keep_the_relabelling(relabellings):
    t = load(DUAL)
    doc, engine = Document(t), Engine(t, 6)
    doc.subscribe(engine.changed)
    engine.matrix()
    pgs = {pg.name: pg for sw in t.switches for pg in sw.portgroups}
    vms = {vm.name: vm for vm in t.vms}
    fw = vms["fw01"].forwarding
    relabellings.clear()
    doc.set(vms["web02"].vnics[0], "network", pgs["VLAN20-App"].id)   # a vNIC onto another portgroup
    assert list(engine.matrix().rows()) == fresh_rows(t, 6)
    doc.set(vms["web02"].vnics[0], "connected", False)
    assert list(engine.matrix().rows()) == fresh_rows(t, 6)
    assert engine.matrix().verdict("vm-dmz01", "vm-app01") is not Engine(t, 4).matrix().verdict("vm-dmz01", "vm-app01")
    # the rule set the example lacks, on IPv6 networks the design has: dmz01 and app01 are kept apart
    doc.insert(fw, "rules", Rule(Action.DENY, "2001:db8:30::/64", "2001:db8:20::/64", name="v6"), 0)
    kept = engine.matrix()
    assert list(kept.rows()) == fresh_rows(t, 6)
    assert kept.verdict("vm-dmz01", "vm-app01") is Engine(t, 4).matrix().verdict("vm-dmz01", "vm-app01")
    doc.set(fw.rules[0], "dst", "2001:db8:10::/64")                  # a rule changed, still a known network
    assert list(engine.matrix().rows()) == fresh_rows(t, 6)
    doc.remove(fw, "rules", fw.rules[0])
    assert list(engine.matrix().rows()) == fresh_rows(t, 6)
    doc.insert(t.nsx.dfw, "rules", DfwRule(Action.DENY, "2001:db8:30::31", "any", applied_to=["vm-dmz01"]), 0)
    assert list(engine.matrix().rows()) == fresh_rows(t, 6)     # an address the design has
    assert len(relabellings) == 6        # the fresh engines' only: every edit followed the kept copy
    doc.set(t.nsx.dfw.rules[0], "src", "2001:db8:99::/64")       # a network without a label: relabelled anew
    assert list(engine.matrix().rows()) == fresh_rows(t, 6)
    assert len(relabellings) == 8


def _ipv6_rule_edit(t, doc, rnd: random.Random) -> None:  # noqa: ANN001 - a Topology
    """A rule naming an IPv6 network or address: one the design has (a vNIC's subnet or address) or a new one."""
    nics = [n for vm in t.vms for n in vm.vnics if n.addresses]
    known = [a if rnd.random() < 0.5 else a.split("/")[0] for n in nics for a in n.addresses]
    spec = rnd.choice(known) if known and rnd.random() < 0.8 else _mapped(f"10.{rnd.randrange(256)}.0.0/16")
    firewalls = [vm.forwarding for vm in t.vms if vm.role.value != "vm" and vm.forwarding.rules]
    action = rnd.choice([Action.ALLOW, Action.DENY])
    if firewalls and rnd.random() < 0.5:
        doc.insert(rnd.choice(firewalls), "rules", Rule(action, spec, rnd.choice(["any", spec])), 0)
    else:
        vms = [vm.id for vm in t.vms]
        doc.insert(t.nsx.dfw, "rules", DfwRule(action, "any", spec, applied_to=rnd.sample(vms, 1)), 0)


@pytest.mark.parametrize("seed", range(24))
def test_the_ipv6_matrix_after_random_edits_equals_a_fresh_one(seed: int):
    """Dual-stack random designs (and IPv6-only ones: every IPv4 address dropped), random edits of every
    kind plus rules naming IPv6 networks: the IPv6 matrix kept current equals a fresh engine's."""
    d = random_rule_design(seed) if seed % 2 else random_design(seed)
    dual_stack(d.t)
    if seed % 3 == 0:     # IPv6 only: each interface keeps its IPv6 twin
        for part in [n for vm in d.t.vms for n in vm.vnics] + [i for r in d.t.physical_routers for i in r.interfaces]:
            if part.addresses:
                part.ip, part.addresses = part.addresses[0], []
            if getattr(part, "gateway6", None):
                part.gateway, part.gateway6 = part.gateway6, None
    doc = Document(d.t)
    engine = Engine(d.t, 6)
    doc.subscribe(engine.changed)
    engine.matrix()
    rnd = random.Random(seed)
    for step in range(8):
        for _ in range(rnd.randint(1, 3)):
            if rnd.random() < 0.3:
                _ipv6_rule_edit(d.t, doc, rnd)
            else:
                _random_edit(d, doc, rnd)
        kept, fresh = list(engine.matrix().rows()), fresh_rows(d.t, 6)
        assert kept == fresh, (seed, step, [(a, b, v, w) for (a, b, v), (_, _, w) in zip(kept, fresh) if v is not w][:5])
        if step in (3, 7):   # the stories too, told on the design's network after the moves it caught up with
            again = Engine(copy.deepcopy(d.t), 6)
            for a, b, _ in kept[::7]:
                assert engine.predict(a, b).verdict is again.predict(a, b).verdict, (seed, step, a, b)


def test_moves_refresh_the_ipv6_matrix_copy_and_the_designs_network_only_for_a_story(monkeypatch):
    t = load(DUAL)
    doc, engine = Document(t), Engine(t, 6)
    doc.subscribe(engine.changed)
    engine.matrix()
    refreshed: list[set] = []
    real = engine._network.refresh
    monkeypatch.setattr(engine._network, "refresh", lambda vms: refreshed.append(set(vms)) or real(vms))
    pgs = {pg.name: pg for sw in t.switches for pg in sw.portgroups}
    vms = {vm.name: vm for vm in t.vms}
    doc.set(vms["web02"].vnics[0], "network", pgs["VLAN20-App"].id)
    doc.set(vms["app01"].vnics[0], "network", pgs["VLAN10-Web"].id)   # (a portgroup holds the firewall's legs)
    matrix = engine.matrix()
    assert list(matrix.rows()) == fresh_rows(t, 6) and refreshed == []
    story = matrix.prediction("vm-web02", "vm-app01")      # the moves are caught up with, once, for the story
    assert len(refreshed) == 1 and {"vm-web02", "vm-app01"} <= refreshed[0]
    assert story.verdict is Engine(copy.deepcopy(t), 6).predict("vm-web02", "vm-app01").verdict
    assert engine.predict("vm-web02", "vm-app01").reasons == Engine(copy.deepcopy(t), 6).predict("vm-web02", "vm-app01").reasons
    assert len(refreshed) == 1
