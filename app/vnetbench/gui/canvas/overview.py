"""Zoomed far out: the links between boxes drawn as bundles, one line per pair of boxes, thicker for more links.

At overview zoom the scene hides what hosts hold and every single link (thousands of hairlines are only a
texture); this item draws, for each pair of top-level boxes joined by cables (a host and its top-of-rack switch,
two switches), one of those cables' routes (they run between the boxes) with a width that grows with the number
of cables, so the racks and the uplinks stay readable.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ..colors import canvas_theme

if TYPE_CHECKING:
    from .scene import DesignScene

class Bundles(QGraphicsItem):
    def __init__(self, scene: DesignScene) -> None:
        super().__init__()
        self._scene = scene
        self.lines: list[tuple[QPainterPath, float]] = []
        self._bounds = QRectF()
        self.setZValue(-1)  # under the tiles: the bundles show between boxes, never across a name
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)

    def show(self, on: bool) -> None:
        if on:
            self.refresh()
        self.setVisible(on)

    def _top(self, oid: str) -> str:
        """The top-level box an end belongs to (a pNIC's host, a port's switch, a VM's host)."""
        scene = self._scene
        key = scene.node_of(oid)
        while key in scene.parent_of:
            key = scene.parent_of[key]
        return key

    def refresh(self) -> None:
        scene = self._scene
        pairs: dict[tuple[str, str], list] = {}
        tops: dict[str, str] = {}  # (ten thousand links share a few thousand ends)
        for link in scene.links.values():
            a = tops.get(link.a) or tops.setdefault(link.a, self._top(link.a))
            b = tops.get(link.b) or tops.setdefault(link.b, self._top(link.b))
            if a != b and a in scene.nodes and b in scene.nodes and link.points:
                pairs.setdefault(tuple(sorted((a, b))), []).append(link)
        self.prepareGeometryChange()
        self.lines = []
        bounds = QRectF()
        for links in pairs.values():
            points = links[0].points
            path = QPainterPath(QPointF(*points[0]))
            for x, y in points[1:]:
                path.lineTo(x, y)
            self.lines.append((path, min(4.0, 1.0 + math.log2(len(links)))))
            bounds = bounds.united(path.controlPointRect())
        self._bounds = bounds.adjusted(-10, -10, 10, 10)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        colour = QColor(canvas_theme().links["cable"])
        for path, width in self.lines:
            pen = QPen(colour, width)
            pen.setCosmetic(True)  # screen pixels, whatever the zoom
            painter.setPen(pen)
            painter.drawPath(path)
