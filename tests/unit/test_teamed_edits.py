"""Edits in designs with teaming or private VLANs: an edit that moves VMs off the teamed (or private VLAN)
segments stays incremental (``Network.refresh``), one that lands on them recompiles; either way the matrix
equals a fresh engine's."""

from __future__ import annotations

import copy
import random

import pytest
from random_designs import random_pvlan_design
from test_predict_matrix import _random_edit

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


def test_moving_a_vm_onto_the_team_recompiles_and_stays_right(compiles):
    t, doc, engine = edited("esx-teaming-half-lost")
    db = next(vm for vm in t.vms if vm.name == "db01")
    app = next(pg for sw in t.switches for pg in sw.portgroups if pg.name == "App-VLAN10")
    compiles.clear()
    doc.set(db, "host", "host-esx01")
    doc.set(db.vnics[0], "network", app.id)      # now one of the teamed vSwitch's run-time choices
    assert list(engine.matrix().rows()) == fresh_rows(t)
    assert len(compiles) == 2                    # the engine's recompile and the fresh one


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
    doc = Document(d.t)
    engine = Engine(d.t)
    doc.subscribe(engine.changed)
    engine.matrix()
    rnd = random.Random(seed)
    for _ in range(6):
        _random_edit(d, doc, rnd)
        assert list(engine.matrix().rows()) == fresh_rows(d.t), seed
