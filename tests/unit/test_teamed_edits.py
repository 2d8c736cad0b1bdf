"""Edits in designs with teaming or private VLANs: an edit that moves VMs, onto teamed segments (a vNIC
whose uplink teaming chooses, a segment split by uplink) or off them, stays incremental (``Network.refresh``);
one that lands on a private VLAN's new segments recompiles; either way the matrix equals a fresh engine's."""

from __future__ import annotations

import copy
import random

import pytest
from random_designs import random_pvlan_design
from test_predict_matrix import _random_edit, following

from vnetbench import resources_dir
from vnetbench.model import Document, load
from vnetbench.predict import Engine
from vnetbench.predict import network as network_module


@pytest.fixture()
def compiles(monkeypatch) -> list[int]:
    """Counts the networks compiled from here on."""
    made: list[int] = []
    real = network_module.Network._compile

    def counted(self):  # noqa: ANN001, ANN202
        made.append(1)
        return real(self)
    monkeypatch.setattr(network_module.Network, "_compile", counted)
    return made


def fresh_rows(t) -> list:  # noqa: ANN001 - a Topology
    return list(Engine(copy.deepcopy(t)).matrix().rows())


def edited(path_name: str):
    t = load(resources_dir() / "examples" / f"{path_name}.vnet.yaml")
    doc = Document(t)
    engine = Engine(t)
    doc.subscribe(engine.changed)
    engine.matrix()
    return t, doc, engine


def test_moving_a_vm_outside_the_team_does_not_recompile(compiles):
    t, doc, engine = edited("esx-teaming-half-lost")
    db = next(vm for vm in t.vms if vm.name == "db01")
    pg = next(pg for sw in t.switches for pg in sw.portgroups if pg.name == "DB-VLAN10")
    compiles.clear()
    doc.set(pg, "vlan", 20)                      # db01 leaves VLAN 10: no teamed segment is touched
    assert list(engine.matrix().rows()) == fresh_rows(t)
    assert len(compiles) == 1                    # the fresh engine's only
    doc.set(db.vnics[0], "connected", False)
    assert list(engine.matrix().rows()) == fresh_rows(t)
    assert len(compiles) == 2


def test_moving_a_vm_onto_the_team_is_taken_in_place_and_stays_right(compiles):
    t, doc, engine = edited("esx-teaming-half-lost")
    db = next(vm for vm in t.vms if vm.name == "db01")
    app = next(pg for sw in t.switches for pg in sw.portgroups if pg.name == "App-VLAN10")
    compiles.clear()
    doc.set(db, "host", "host-esx01")
    doc.set(db.vnics[0], "network", app.id)      # now one of the teamed vSwitch's run-time choices
    assert list(engine.matrix().rows()) == fresh_rows(t)
    assert len(compiles) == 1                    # the fresh engine's only: the move was taken in place


def test_private_vlan_designs_keep_other_edits_incremental(compiles):
    t, doc, engine = edited("esx-private-vlans")
    web = next(pg for sw in t.switches for pg in sw.portgroups if pg.name == "DMZ-Web")
    db = next(vm for vm in t.vms if vm.name == "db02")
    compiles.clear()
    doc.set(db.vnics[0], "network", web.id)      # onto an existing private VLAN segment: labels already known
    assert list(engine.matrix().rows()) == fresh_rows(t)
    assert len(compiles) == 1


@pytest.mark.parametrize("seed", range(12))
def test_random_edits_of_private_vlan_designs_keep_the_matrix_exact(seed: int):
    d = random_pvlan_design(seed)
    doc, engine = following(d.t)
    rnd = random.Random(seed)
    for _ in range(6):
        _random_edit(d, doc, rnd)
        assert list(engine.matrix().rows()) == fresh_rows(d.t), seed


def _teamed_edit(t, doc, rnd: random.Random) -> None:  # noqa: ANN001 - a Topology
    """A move onto or within teamed vSwitches: a teamed portgroup's VLAN, a vNIC onto a teamed portgroup
    (pinned or not), or a VM to another host."""
    teamed = [pg for sw in t.switches if sw.teaming is not None for pg in sw.portgroups]
    plain = [vm for vm in t.vms if vm.role.value == "vm" and vm.vnics]
    kind = rnd.choice(["vlan", "onto", "pin", "host"])
    if kind == "vlan" and teamed:
        doc.set(rnd.choice(teamed), "vlan", rnd.choice([10, 20, 30, 40, 0]))
    elif kind in ("onto", "pin") and teamed and plain:
        vm, pg = rnd.choice(plain), rnd.choice(teamed)
        sw = next(sw for sw in t.switches if pg in sw.portgroups)
        if sw.host is not None:
            doc.set(vm, "host", sw.host)
        doc.set(vm.vnics[0], "network", pg.id)
        if kind == "pin" and sw.uplinks:
            doc.set(vm.vnics[0], "uplink", rnd.choice(sw.uplinks).pnic)
    elif plain:
        doc.set(rnd.choice(plain), "host", rnd.choice(t.hosts).id)


@pytest.mark.parametrize("seed", range(40))
def test_random_moves_onto_teamed_switches_keep_the_matrix_exact(seed: int):
    """Random designs with teaming (the drawn ones without it get a policy on every vSwitch with two
    uplinks), VMs moved onto, within and off teamed vSwitches: the kept matrix is a fresh engine's."""
    from random_designs import random_design
    from vnetbench.model.objects import LoadBalancing, Teaming

    d = random_design(seed)
    policies = [LoadBalancing.PORT_ID, LoadBalancing.MAC_HASH, LoadBalancing.IP_HASH]
    for k, sw in enumerate(d.t.switches):
        if sw.kind.value == "vss" and len(sw.uplinks) > 1 and sw.teaming is None:
            for up in sw.uplinks:
                up.standby = False
            sw.teaming = Teaming(policies[(seed + k) % len(policies)])
    doc, engine = following(d.t)
    rnd = random.Random(seed)
    for step in range(12):
        for _ in range(rnd.randint(1, 3)):
            (_teamed_edit(d.t, doc, rnd) if rnd.random() < 0.7 else _random_edit(d, doc, rnd))
        kept, fresh = list(engine.matrix().rows()), fresh_rows(d.t)
        assert kept == fresh, (seed, step, [(a, b, v, w) for (a, b, v), (_, _, w) in zip(kept, fresh) if v is not w][:5])
