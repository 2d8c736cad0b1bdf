"""The path overlay (issue 29): the line runs along the links and frame edges, right-angled, and never through an
object's box (so never through its labels); the verdict badge stays inside the view however it is scrolled."""

from __future__ import annotations

import itertools

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor

from canvas_helpers import artifacts, settle
from vnetbench import resources_dir
from vnetbench.gui.canvas.items import HandleItem
from vnetbench.predict import predict

pytestmark = pytest.mark.gui


def opened(win, qtbot, example: str) -> None:
    win.open_example(str(resources_dir() / "examples" / example))
    qtbot.waitUntil(lambda: bool(win.workbench.topology.vms), timeout=10_000)
    settle(win, qtbot)


def boxes(scene) -> dict[str, QRectF]:
    """Every box on the canvas that is all label: handles drawn as chips (ports, pNICs, interfaces), and nodes that
    are neither frames nor hold such chips (a switch holding ports is passed through like a frame)."""
    chips = {key: h for key, h in scene.handles.items() if isinstance(h, HandleItem) and h.chip is not None}
    holders = {h.parentItem().oid for h in chips.values()}
    found = {key: scene.node_rect(key) for key, item in scene.nodes.items() if not item.frame and key not in holders}
    found.update({key: h.mapRectToScene(h.chip) for key, h in chips.items()})
    return {k: r for k, r in found.items() if r is not None}


def crossings(lines: list[list[QPointF]], scene) -> list[str]:
    """The boxes a segment of the line passes through (touching an edge is fine: that is where it meets them)."""
    crossed = []
    for key, rect in boxes(scene).items():
        inner = rect.adjusted(3, 3, -3, -3)
        for line in lines:
            for p, q in itertools.pairwise(line):
                span = QRectF(p, q).normalized().adjusted(-0.01, -0.01, 0.01, 0.01)
                if span.intersects(inner):
                    crossed.append(key)
    return crossed


def test_the_path_runs_along_links_at_right_angles_and_never_through_a_box(window, qtbot):
    win = window
    opened(win, qtbot, "esx-four-cases.vnet.yaml")
    topology, overlay = win.workbench.topology, win.scene.overlay
    drawn = 0
    for a, b in itertools.permutations(topology.vms, 2):
        win.workbench.highlight_path(predict(topology, a.id, b.id))
        assert overlay.lines, (a.name, b.name)
        for line in overlay.lines:
            for p, q in itertools.pairwise(line):
                assert abs(p.x() - q.x()) < 0.5 or abs(p.y() - q.y()) < 0.5, (a.name, b.name, p, q)  # no diagonal
        assert crossings(overlay.lines, win.scene) == [], (a.name, b.name, crossings(overlay.lines, win.scene))
        drawn += 1
    assert drawn == 20
    web01, db01 = (next(vm for vm in topology.vms if vm.name == n) for n in ("web01", "db01"))
    win.workbench.highlight_path(predict(topology, web01.id, db01.id))  # routed out and back through core-sw1
    win.view.fit()
    qtbot.wait(100)
    assert win.view.grab().save(str(artifacts() / "path-overlay.png"))
    names = [name for _, name in overlay.pnics]
    assert names and all(name == "vmnic0" for name in names)
    # the pNIC's label sits beside its box, not over the name written in it
    vmnic0 = next(h for h in win.scene.handles.values() if getattr(h, "full_label", "") == "vmnic0")
    for at, _ in overlay.pnics:
        assert at.x() > vmnic0.mapRectToScene(vmnic0.chip).right()


def colour_at(image, point: QPointF) -> QColor:
    ratio = image.devicePixelRatio()
    return QColor(image.pixel(round(point.x() * ratio), round(point.y() * ratio)))


def test_the_verdict_badge_stays_inside_the_view_when_scrolled_and_zoomed(window, qtbot):
    win = window
    opened(win, qtbot, "esx-four-cases.vnet.yaml")
    topology, view = win.workbench.topology, win.view
    web01, db01 = (next(vm for vm in topology.vms if vm.name == n) for n in ("web01", "db01"))
    win.workbench.highlight_path(predict(topology, web01.id, db01.id))
    overlay = win.scene.overlay
    viewport = QRectF(view.viewport().rect())
    for step, move in enumerate((lambda: view.zoom_actual(), lambda: view.zoom_by(3.0),
                                 lambda: view.centerOn(overlay.badge_at + QPointF(300, 700)),
                                 lambda: view.centerOn(overlay.badge_at + QPointF(-900, -500)))):
        move()
        qtbot.wait(50)
        box = view.path_badge()
        assert box is not None and viewport.contains(box), (step, box, viewport)
        image = view.viewport().grab().toImage()
        # drawn where it says: the verdict's colour just inside the pill's left end
        seen = colour_at(image, QPointF(box.left() + 6, box.center().y()))
        assert abs(seen.red() - overlay.colour.red()) + abs(seen.green() - overlay.colour.green()) \
            + abs(seen.blue() - overlay.colour.blue()) < 60, (step, seen.name(), overlay.colour.name())
    assert view.viewport().grab().save(str(artifacts() / "path-overlay-badge-scrolled.png"))
    win.workbench.highlight_path(None)
    assert view.path_badge() is None
