"""Edits as undo commands: one command per gesture, and one undo restores everything a gesture changed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from vnetbench.gui.canvas.scene import DesignScene
from vnetbench.gui.editing import EditError, Editor, connectable
from vnetbench.gui.workbench import Workbench
from vnetbench.model import (VM, Host, Link, PhysicalSwitch, PNic, Port, Portgroup, Switch, Topology,
                             Uplink, VNic)
from vnetbench.model.fileformat import to_data

pytestmark = pytest.mark.gui


def small() -> Topology:
    """esx01 with vSwitch0 (two portgroups, uplinked on vmnic0 cabled to sw1) and two VMs on it."""
    return Topology(
        id="t", name="small",
        hosts=[Host("h1", "esx01", pnics=[PNic("p0", "vmnic0"), PNic("p1", "vmnic1")]),
               Host("h2", "esx02", pnics=[PNic("q0", "vmnic0")])],
        switches=[Switch("s0", "vSwitch0", host="h1", uplinks=[Uplink("p0")],
                         portgroups=[Portgroup("pg10", "VLAN10", 10), Portgroup("pg20", "VLAN20", 20)])],
        vms=[VM("a", "vm-a", host="h1", vnics=[VNic("a0", "eth0", network="pg10")]),
             VM("b", "vm-b", host="h1", vnics=[VNic("b0", "eth0", network="pg20")])],
        physical_switches=[PhysicalSwitch("sw1", "sw1", ports=[Port("sw1.1", "Gi1"), Port("sw1.2", "Gi2")])],
        links=[Link("l1", "p0", "sw1.1")],
    )


@pytest.fixture
def bench(qtbot):
    wb = Workbench(small())
    from vnetbench.gui.canvas.layout import fill_layout
    fill_layout(wb.topology)
    scene = DesignScene(wb)
    return wb, Editor(wb), scene


def test_deleting_a_switch_is_one_command_and_one_undo_restores_everything(bench):
    wb, editor, scene = bench
    before = to_data(wb.topology)
    assert editor.delete(["s0"]) == 1
    topo = wb.topology
    assert topo.switches == []
    assert [nic.network for vm in topo.vms for nic in vm.vnics] == [None, None]
    assert wb.undo_stack.count() == 1
    assert "s0" not in scene.nodes and "pg10" not in scene.nodes
    assert not any(k.startswith("net:") or k.startswith("up:") for k in scene.links)
    wb.undo_stack.undo()
    assert to_data(wb.topology) == before
    assert {"s0", "pg10", "pg20"} <= set(scene.nodes) and "net:a0" in scene.links and "up:s0:p0" in scene.links


def test_deleting_a_host_takes_what_it_holds_and_its_cables(bench):
    wb, editor, _ = bench
    before = to_data(wb.topology)
    editor.delete(["h1"])
    topo = wb.topology
    assert [h.id for h in topo.hosts] == ["h2"] and topo.switches == [] and topo.vms == [] and topo.links == []
    assert set(topo.layout.places) & {"h1", "s0", "a", "b", "pg10"} == set()
    wb.undo_stack.undo()
    assert to_data(wb.topology) == before


def test_connect_rules_and_errors(bench):
    wb, editor, _ = bench
    editor.connect("b0", "pg10")
    assert wb.topology.vms[1].vnics[0].network == "pg10"
    editor.connect("p1", "s0")
    assert [u.pnic for u in wb.topology.switches[0].uplinks] == ["p0", "p1"]
    with pytest.raises(EditError, match="already an uplink"):
        editor.connect("p1", "s0")
    with pytest.raises(EditError, match="not on esx02"):
        editor.connect("q0", "s0")
    with pytest.raises(EditError, match="has portgroups"):
        editor.connect("a0", "s0")
    with pytest.raises(EditError, match="cannot connect a vnic to a vnic"):
        editor.connect("a0", "b0")
    # Re-plugging a cable end moves it: the old cable goes in the same step.
    editor.connect("p0", "sw1.2")
    assert [(link.a, link.b) for link in wb.topology.links] == [("p0", "sw1.2")]
    wb.undo_stack.undo()
    assert [(link.a, link.b) for link in wb.topology.links] == [("p0", "sw1.1")]


def test_containment_rules_on_add(bench):
    wb, editor, _ = bench
    with pytest.raises(EditError, match="into a virtual switch"):
        editor.add("portgroup", 0, 0, None)
    with pytest.raises(EditError, match="into a host"):
        editor.add("switch-vss", 0, 0, None)
    bridge = editor.add("switch-linux-bridge", 0, 0, "h2")
    with pytest.raises(EditError, match="no portgroups"):
        editor.add("portgroup", 0, 0, bridge)
    pg = editor.add("portgroup", 0, 0, "s0")
    assert wb.topology.switches[0].portgroups[-1].id == pg
    vm = editor.add("vm", 0, 0, "h2")
    assert wb.document.index.get(vm).host == "h2"


def test_move_and_reparent_is_one_command(bench):
    wb, editor, scene = bench
    editor.add("switch-vss", 600, 0, "h2")
    target = wb.topology.switches[-1].id
    steps = wb.undo_stack.count()
    editor.move({"pg20": (700.0, 60.0), "b": (800.0, 10.0)}, {"pg20": target, "b": "h2"}, "Move")
    assert wb.undo_stack.count() == steps + 1
    assert [pg.id for pg in wb.topology.switches[-1].portgroups] == ["pg20"]
    assert wb.document.index.get("b").host == "h2"
    assert scene.nodes["pg20"].pos() == QPointF(700, 60)
    wb.undo_stack.undo()
    assert [pg.id for pg in wb.topology.switches[0].portgroups] == ["pg10", "pg20"]
    assert wb.document.index.get("b").host == "h1"


def test_paste_makes_fresh_ids_and_remaps_references_inside_the_copy(bench):
    wb, editor, _ = bench
    data = editor.copy_data(["h1"])  # the host with its switch, portgroups and VMs
    ids = editor.paste(data, 100, 100)
    assert wb.undo_stack.count() == 1
    topo = wb.topology
    new_host = next(h for h in topo.hosts if h.id in ids)
    new_switch = next(s for s in topo.switches if s.id in ids)
    new_vms = [v for v in topo.vms if v.id in ids]
    assert new_host.id != "h1" and new_switch.host == new_host.id
    assert {v.host for v in new_vms} == {new_host.id}
    assert new_switch.uplinks[0].pnic == new_host.pnics[0].id
    assert {n.network for v in new_vms for n in v.vnics} == {pg.id for pg in new_switch.portgroups}
    assert len(wb.document.index.duplicates) == 0
    assert topo.layout.places[new_host.id].x == topo.layout.places["h1"].x + 100
    wb.undo_stack.undo()
    assert [h.id for h in topo.hosts] == ["h1", "h2"]


def test_resize_frame_keeps_it_large_enough_for_children(bench):
    wb, editor, scene = bench
    editor.resize("h1", 50, 50)
    rect = scene.node_rect("h1")
    for child in ("s0", "a", "b"):
        assert rect.contains(scene.node_rect(child))
    editor.resize("h1", 2000, 900)
    assert scene.node_rect("h1").width() == 2000


def test_nothing_is_linked_to_itself(bench):
    """editing.py used to compare a kind to an id, so a port could be cabled to itself."""
    wb, editor, _ = bench
    steps = wb.undo_stack.count()
    for end in ("sw1.2", "p1", "s0"):
        with pytest.raises(EditError, match="two different ends"):
            editor.connect(end, end)
        assert not connectable(wb.document.index, end, end)
    assert wb.undo_stack.count() == steps and [link.id for link in wb.topology.links] == ["l1"]
    assert connectable(wb.document.index, "p1", "sw1.2") and connectable(wb.document.index, "a0", "pg20")
    assert not connectable(wb.document.index, "a0", "sw1.2")  # a vNIC is not cabled to a switch port


def test_history_names_what_changed(bench):
    wb, editor, _ = bench
    editor.connect("a0", "pg20")
    assert wb.undo_stack.undoText() == "Connect vm-a/eth0 to vSwitch0/VLAN20"
    editor.connect("p1", "sw1.2")
    assert wb.undo_stack.undoText() == "Link esx01/vmnic1 to sw1/Gi2"
    editor.set(wb.document.index.get("a0"), "ip", "10.0.0.5/24")
    assert wb.undo_stack.undoText() == "Set vm-a/eth0 IP to 10.0.0.5/24"
    editor.set(wb.document.index.get("a0"), "network", "pg10")
    assert wb.undo_stack.undoText() == "Set vm-a/eth0 network to vSwitch0/VLAN10"


def test_the_canvas_offers_a_patch_exactly_where_prediction_makes_one():
    """Only OVS and Linux bridges of one KVM host are patched (``model.forwarding.patchable``)."""
    from vnetbench.model import HostKind, Index, SwitchKind
    from vnetbench.gui.editing import connection
    t = Topology(id="k", name="kvm", hosts=[Host("k1", "kvm1", HostKind.KVM), Host("k2", "kvm2", HostKind.KVM)],
                 switches=[Switch("int", "br-int", SwitchKind.OVS, host="k1"),
                           Switch("phys", "br-phys", SwitchKind.OVS, host="k1"),
                           Switch("lb", "br0", SwitchKind.LINUX_BRIDGE, host="k1"),
                           Switch("far", "br-int", SwitchKind.OVS, host="k2"),
                           Switch("mv", "mv0", SwitchKind.MACVTAP, host="k1")])
    index = Index(t)
    assert connection(index, "int", "phys") == connection(index, "int", "lb") == "cable"
    for other in ("far", "mv"):
        assert not connectable(index, "int", other)
        with pytest.raises(EditError, match="one KVM host can be patched"):
            connection(index, "int", other)
