"""The canvas follows the model change by change (issue 29): an inspector edit redraws the items of the object
it changed and the links that touch them, never the whole design; an edit that re-links still syncs all."""

from __future__ import annotations

import pytest

from canvas_helpers import type_into
from vnetbench import resources_dir

pytestmark = pytest.mark.gui
EXAMPLE = resources_dir() / "examples" / "esx-four-cases.vnet.yaml"


def test_an_inspector_edit_redraws_its_object_and_not_the_design(window, qtbot, monkeypatch):
    win = window
    win.open_example(str(EXAMPLE))
    qtbot.wait(100)
    scene = win.scene
    syncs, updated = [], []
    monkeypatch.setattr(scene, "sync", lambda *a: syncs.append(1))
    real_update = scene._update_node
    monkeypatch.setattr(scene, "_update_node", lambda item, *a: updated.append(item.oid) or real_update(item, *a))
    pg = next(p for sw in win.workbench.topology.switches for p in sw.portgroups if p.name == "VLAN301")
    win.workbench.select([pg.id])
    type_into(win, "vlan", "302")
    assert "302" in str(pg.vlan)
    scene.flush()
    assert syncs == [] and updated == [pg.id]
    assert any("302" in line for line in scene.nodes[pg.id].lines)  # drawn with its new VLAN

    web01 = next(vm for vm in win.workbench.topology.vms if vm.name == "web01")
    win.workbench.select([web01.vnics[0].id])
    type_into(win, "ip", "10.30.0.99/24")
    scene.flush()
    assert syncs == [] and updated[-1] == web01.id  # a vNIC's address: its VM's box
    assert any("10.30.0.99" in line for line in scene.nodes[web01.id].lines)

    win.editor.set(web01.vnics[0], "network", None)  # a re-link: everything is looked at again
    scene.flush()
    assert syncs
