"""Dragging on a busy canvas: links follow the node every frame, the model moves once on release, and a
partial repaint strokes exactly the links that cross the repainted area."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, QSize, Qt
from PySide6.QtGui import QColor
from PySide6.QtTest import QTest

from canvas_helpers import centre
from vnetbench.gui.canvas.geometry import GRID
from vnetbench.gui.canvas.items import LINK_STYLES, LinkItem

pytestmark = pytest.mark.gui


def portgroup_with_vms(win, vms: int) -> tuple[str, list[str]]:
    host = win.view.drop("host-esxi", QPointF(300, 120))
    switch = win.view.drop("switch-vss", QPointF(160, 170))
    pg = win.view.drop("portgroup", centre(win, switch))
    nics = []
    for i in range(vms):
        rect = win.scene.node_rect(host)
        vm = win.view.drop("vm", QPointF(rect.left() + 90 + 160 * i, rect.bottom() - 40))
        assert vm is not None, win.statusBar().currentMessage()
        nic = win.workbench.document.index.get(vm).vnics[0].id
        win.editor.connect(nic, pg)
        nics.append(nic)
    return pg, nics


def assert_links_meet_their_ends(win, pg: str, nics: list[str]) -> None:
    scene = win.scene
    rect = scene.node_rect(pg)
    for nic in nics:
        link = scene.links[f"net:{nic}"]
        ends = {(p.x(), p.y()) for p in (link.path.pointAtPercent(0), link.path.pointAtPercent(1))}
        handle = scene.handles[nic].scenePos()
        assert (handle.x(), handle.y()) in ends  # one end on the vNIC
        edge = [(rect.center().x(), y) for y in (rect.top(), rect.bottom())]
        assert ends & set(edge), (ends, edge)  # the other on the middle of the portgroup's top or bottom


def test_links_follow_a_dragged_portgroup_every_frame_and_the_model_moves_once(window):
    win = window
    pg, nics = portgroup_with_vms(win, 3)
    win.view.resetTransform()
    win.view.centerOn(centre(win, pg) + QPointF(100, 60))
    place = win.workbench.topology.layout.places[pg]
    before, steps = (place.x, place.y), win.workbench.undo_stack.count()
    viewport = win.view.viewport()
    start = win.view.mapFromScene(centre(win, pg))
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, 9):
        QTest.mouseMove(viewport, start + QPoint(i * int(GRID), (i % 3) * int(GRID)))
        assert win.scene.nodes[pg].pos() != QPointF(*before)
        assert_links_meet_their_ends(win, pg, nics)  # re-routed with the node, frame by frame
        assert (place.x, place.y) == before  # the model waits for the release
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       start + QPoint(8 * int(GRID), 2 * int(GRID)))
    assert abs(place.x - before[0] - 8 * GRID) <= GRID / 2 and abs(place.y - before[1] - 2 * GRID) <= GRID / 2
    assert place.x % GRID == place.y % GRID == 0  # snapped
    assert win.scene.nodes[pg].pos() == QPointF(place.x, place.y)
    assert win.workbench.undo_stack.count() == steps + 1  # one undo step for the whole gesture
    assert_links_meet_their_ends(win, pg, nics)
    win.workbench.undo_stack.undo()
    assert (place.x, place.y) == before
    assert_links_meet_their_ends(win, pg, nics)


@pytest.mark.parametrize("ends", [((0, 0), (3000, 2000)), ((2500, 40), (-900, 1800)), ((0, 0), (1200, 10)),
                                  ((10, 900), (10, -700)), ((0, 0), (30, 60))])
def test_the_pieces_of_a_link_hold_the_whole_curve(qtbot, ends):
    link = LinkItem("k", "net", "a", "b")
    link.set_ends(QPointF(*ends[0]), QPointF(*ends[1]))
    pieces = link.pieces()
    for i in range(401):
        p = link.path.pointAtPercent(i / 400)
        assert any(x - 1 <= p.x() <= r + 1 and y - 1 <= p.y() <= b + 1 for x, y, r, b, *_ in pieces), (i, p)
    lines = [line for piece in pieces for line in link._lines(piece)]
    assert lines[0].p1() == QPointF(*ends[0]) and lines[-1].p2() == QPointF(*ends[1])
    assert all(a.p2() == b.p1() for a, b in zip(lines, lines[1:]))  # one unbroken polyline


def link_pixels(win, point: QPointF) -> int:
    """Pixels in the colour of a "net" link when the view repaints only the 60x60 pixels around ``point``."""
    win.view.resetTransform()
    win.view.centerOn(point)
    centre_px = win.view.mapFromScene(point)
    image = win.view.viewport().grab(QRect(centre_px - QPoint(30, 30), QSize(60, 60))).toImage()
    colour = QColor(LINK_STYLES["net"][0])
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            pixel = QColor(image.pixel(x, y))
            if max(abs(pixel.red() - colour.red()), abs(pixel.green() - colour.green()),
                   abs(pixel.blue() - colour.blue())) < 40:
                count += 1
    return count


def test_a_partial_repaint_strokes_a_long_link_where_it_crosses_and_nowhere_else(window):
    win = window
    pg, nics = portgroup_with_vms(win, 1)
    vm = win.scene.handles[nics[0]].parentItem()
    vm.setPos(vm.pos() + QPointF(2600, 1800))  # far away: a long curve with a large bounding box
    win.scene.reroute([vm.oid])
    link = win.scene.links[f"net:{nics[0]}"]
    assert link_pixels(win, link.path.pointAtPercent(0.5)) > 20
    assert link_pixels(win, link.path.pointAtPercent(0.3)) > 20
    corner = link.boundingRect().topRight() + QPointF(-300, 300)  # inside the box, far from the curve
    assert link.boundingRect().contains(corner)
    assert link_pixels(win, corner) == 0
