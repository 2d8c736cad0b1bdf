"""The path dock: the verdict for a chosen pair, shown at once, and updated when a VLAN changes."""

from __future__ import annotations

import pytest

from panel_designs import two_hosts_via_switch, two_vms_one_switch
from vnetbench.gui.colors import VERDICT_COLORS
from vnetbench.gui.panels.path import PathDock
from vnetbench.gui.workbench import Workbench
from vnetbench.predict import Verdict

pytestmark = pytest.mark.gui


def _dock(qtbot, design):
    wb = Workbench(design)
    dock = PathDock(wb)
    qtbot.addWidget(dock)
    return wb, dock


def test_known_pair_shows_verdict_hops_and_highlights(qtbot):
    wb, dock = _dock(qtbot, two_hosts_via_switch())
    drawn = []
    wb.pathHighlighted.connect(drawn.append)
    dock.show_pair("vm-a", "vm-c")

    assert dock.prediction is not None
    assert dock.prediction.verdict == Verdict.VIA_PHYSICAL
    assert "via physical" in dock.badge.text()
    assert VERDICT_COLORS["via-physical"].lower() in dock.badge.styleSheet().lower()
    assert drawn and drawn[-1] is dock.prediction and wb.path is dock.prediction

    forward = dock.hops.topLevelItem(0)
    hops = [forward.child(i).text(1) for i in range(forward.childCount())]
    assert len(hops) == len(dock.prediction.forward.hops) > 2
    assert "esx01/vmnic0" in dock.details.text() and "esx02/vmnic0" in dock.details.text()


def test_vlan_edit_updates_the_path_at_once(qtbot):
    wb, dock = _dock(qtbot, two_vms_one_switch())
    dock.show_pair("vm-a", "vm-b")
    assert dock.prediction.verdict == Verdict.IN_HOST
    assert "in host" in dock.badge.text()

    drawn = []
    wb.pathHighlighted.connect(drawn.append)
    pg_b = wb.topology.switches[0].portgroups[1]
    wb.document.set(pg_b, "vlan", 20)  # no event loop turn needed: the update is immediate
    assert dock.prediction.verdict == Verdict.UNREACHABLE
    assert "unreachable" in dock.badge.text()
    assert drawn and drawn[-1].verdict == Verdict.UNREACHABLE

    wb.document.set(pg_b, "vlan", 10)
    assert dock.prediction.verdict == Verdict.IN_HOST


def test_pair_requested_and_selection(qtbot):
    wb, dock = _dock(qtbot, two_vms_one_switch())
    assert dock.prediction is None
    assert not dock.use_selection.isEnabled()
    wb.request_pair("vm-b", "vm-a")
    assert (dock.src.current_id(), dock.dst.current_id()) == ("vm-b", "vm-a")
    assert dock.prediction.forward.src == "vm-b"

    wb.select(["vm-a-nic0", "vm-b"])  # a vNIC stands for its VM
    assert dock.use_selection.isEnabled()
    dock.use_selection.click()
    assert (dock.src.current_id(), dock.dst.current_id()) == ("vm-a", "vm-b")
    wb.select(["vm-a"])
    assert not dock.use_selection.isEnabled()


def test_search_completes_on_part_of_a_name(qtbot):
    _, dock = _dock(qtbot, two_hosts_via_switch())
    completer = dock.src.completer()
    completer.setCompletionPrefix("-C")
    assert completer.completionCount() == 1
    assert completer.currentCompletion() == "vm-c"


def test_moving_a_node_does_not_recompute(qtbot):
    from vnetbench.model import Place

    wb, dock = _dock(qtbot, two_vms_one_switch())
    dock.show_pair("vm-a", "vm-b")
    shown = dock.prediction
    place = Place(x=0, y=0)
    wb.topology.layout.places["vm-a"] = place
    wb.document.set(place, "x", 120.0)
    assert dock.prediction is shown  # a position is not traffic: no new prediction, no redraw
    wb.document.set(wb.topology.switches[0].portgroups[1], "vlan", 20)
    assert dock.prediction is not shown and dock.prediction.verdict == Verdict.UNREACHABLE


def test_the_bottleneck_hop_is_marked_by_its_id_not_its_words(qtbot):
    wb, dock = _dock(qtbot, two_hosts_via_switch())
    dock.show_pair("vm-a", "vm-c")
    estimate = dock.prediction.forward.estimate
    assert estimate.bottleneck_id is not None and estimate.bottleneck
    forward = dock.hops.topLevelItem(0)
    marked = [i for i in range(forward.childCount()) if forward.child(i).font(1).bold()]
    hops = dock.prediction.forward.hops
    assert [hops[i].object_id for i in marked] == [estimate.bottleneck_id]
    assert forward.child(marked[0]).toolTip(1) == "the bottleneck of this direction"


def test_a_new_design_is_listed_on_a_later_turn_and_at_once_when_a_pair_is_asked_for(qtbot):
    """Replacing the design lists its endpoints on a later turn of the event loop (opening 10,000 VMs does not
    list them in the same block as every other dock's handling of the new design); a pair asked for meanwhile
    lists them first."""
    wb, dock = _dock(qtbot, two_vms_one_switch())

    def listed() -> list[str]:
        return [object_id for object_id, _ in dock.src.list.items]

    assert listed() == ["vm-a", "vm-b"]
    wb.replace_design(two_hosts_via_switch())
    assert listed() == ["vm-a", "vm-b"]   # not yet
    qtbot.waitUntil(lambda: "vm-c" in listed(), timeout=2000)
    assert listed() == [vm.id for vm in wb.topology.vms]

    wb.replace_design(two_vms_one_switch())
    wb.request_pair("vm-b", "vm-a")   # before that turn
    assert listed() == ["vm-a", "vm-b"]   # (vm-c is gone)
    assert (dock.src.current_id(), dock.dst.current_id()) == ("vm-b", "vm-a")
