"""Zoomed far out: the links between boxes drawn as bundles, one line per pair of boxes, thicker for more links;
farther out still, the racks.

At overview zoom the scene hides what hosts hold and every single link (thousands of hairlines are only a
texture); this item draws, for each pair of top-level boxes joined by cables (a host and its top-of-rack switch,
two switches), one of those cables' routes (they run between the boxes) with a width that grows with the number
of cables, so the racks and the uplinks stay readable.

Below ``RACKS_LOD`` (a whole 10,000-VM design in one window) a host tile is a few pixels tall and even one line
per host smears the rows together: the bundles give way to the racks, a light band behind the hosts cabled to
each physical switch (and the switch), named at a readable size in a column beside them with what it holds ("tor3 · 20 hosts
· 400 VMs"); the tiles themselves are plain blocks a pixel apart (``items.NodeItem``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from ..colors import canvas_theme
from .items import _metrics, font, lod, tint
from .slicing import Slices

if TYPE_CHECKING:
    from .scene import DesignScene

#: Below this zoom the racks are drawn instead of the bundles.
RACKS_LOD = 0.05
#: The racks' names, in screen pixels; a name is left out where it would overlap the one above it.
RACK_LABEL_PX = 11
#: How far right of its band a rack's name may reach, in scene units (the item's bounds must hold it at any zoom).
LABEL_REACH = 200_000.0


class Bundles(QGraphicsItem):
    def __init__(self, scene: DesignScene) -> None:
        super().__init__()
        self._scene = scene
        self.lines: list[tuple[QPainterPath, float]] = []
        self.racks: list[tuple[QRectF, str]] = []  # (band, name · what it holds), top to bottom
        self._bounds = QRectF()
        self.setZValue(-1)  # under the tiles: the bundles show between boxes, never across a name
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setVisible(False)
        self.stale = True  # the links changed since the bundles were worked out (``Routing``)

    def show(self, on: bool) -> None:
        if on and self.stale:
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
        for _ in self.refresh_steps():
            pass

    def refresh_steps(self, clock: Slices | None = None, progress: tuple[int, int] = (0, 0)):
        """Work out the bundles and the racks from the scene's links, yielding ``progress`` whenever ``clock``'s
        slice is used up: ten thousand links take a tenth of a second (see ``Following.sync_gradually``)."""
        clock = clock or Slices()
        scene = self._scene
        pairs: dict[tuple[str, str], list] = {}
        tops: dict[str, str] = {}  # (ten thousand links share a few thousand ends)
        for link in list(scene.links.values()):
            a = tops.get(link.a) or tops.setdefault(link.a, self._top(link.a))
            b = tops.get(link.b) or tops.setdefault(link.b, self._top(link.b))
            if a != b and a in scene.nodes and b in scene.nodes and link.points:
                pairs.setdefault((a, b) if a < b else (b, a), []).append(link)
            if clock.due():
                yield progress
                clock.restart()
        lines = []
        bounds = QRectF()
        for links in pairs.values():
            points = links[0].points
            path = QPainterPath(QPointF(*points[0]))
            for x, y in points[1:]:
                path.lineTo(x, y)
            lines.append((path, min(4.0, 1.0 + math.log2(len(links)))))
            bounds = bounds.united(path.controlPointRect())
            if clock.due():
                yield progress
                clock.restart()
        if clock.due():
            yield progress
            clock.restart()
        racks = self._racks(pairs)
        for band, _ in racks:
            bounds = bounds.united(band.adjusted(0, 0, LABEL_REACH, 0))
        self.prepareGeometryChange()
        self.lines, self.racks = lines, racks
        self._bounds = bounds.adjusted(-10, -10, 10, 10)
        self.stale = False
        self.update()

    def _racks(self, pairs: dict[tuple[str, str], list]) -> list[tuple[QRectF, str]]:
        """Each physical switch with hosts cabled to it, as a band around them and it, and its words; a host
        cabled to several switches belongs to the one it has most cables to."""
        nodes = self._scene.nodes
        best: dict[str, tuple[int, str]] = {}  # host -> (cables, switch)
        for (a, b), links in pairs.items():
            kinds = {nodes[a].kind: a, nodes[b].kind: b}
            host, switch = kinds.get("host"), kinds.get("physical_switch")
            if host and switch and (len(links), switch) > best.get(host, (0, "")):
                best[host] = (len(links), switch)
        held: dict[str, list[str]] = {}
        for host, (_, switch) in best.items():
            held.setdefault(switch, []).append(host)
        out = []
        for switch, hosts in held.items():
            band = QRectF()
            for key in [switch, *hosts]:
                item = nodes[key]
                band = band.united(item.mapRectToScene(item.size))
            vms = sum(self._scene.vms_in.get(h, 0) for h in hosts)
            words = [nodes[switch].title, f"{len(hosts)} host{'s' if len(hosts) != 1 else ''}"]
            words += [f"{vms:,} VM{'s' if vms != 1 else ''}"] if vms else []
            out.append((band, " \u00b7 ".join(words)))
        return sorted(out, key=lambda r: (r[0].top(), r[0].left()))

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if lod(option, painter) < RACKS_LOD and self.racks:
            self._paint_racks(painter)
            return
        colour = QColor(canvas_theme().links["cable"])
        pens: dict[float, QPen] = {}
        for path, width in self.lines:
            pen = pens.get(width)
            if pen is None:
                pen = pens[width] = QPen(colour, width)
                pen.setCosmetic(True)  # screen pixels, whatever the zoom
            painter.setPen(pen)
            painter.drawPath(path)

    def _paint_racks(self, painter: QPainter) -> None:
        """A light band behind each rack, and its name beside it in screen pixels."""
        theme = canvas_theme()
        fill = tint(QColor(theme.families["physical"][1]), 0.10, QColor(theme.background))
        to_screen = painter.worldTransform()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(fill)
        for band, _ in self.racks:
            painter.drawRect(band)
        painter.save()
        painter.resetTransform()  # screen pixels: the names read the same at any zoom
        painter.setFont(font(RACK_LABEL_PX, True))
        painter.setPen(QColor(theme.text))
        metrics = _metrics(RACK_LABEL_PX, True)
        shown = [(to_screen.mapRect(band), words) for band, words in self.racks]
        left = max(band.right() for band, _ in shown) + 10  # one column, right of the racks
        above = -math.inf
        for band, words in shown:
            top = band.center().y() - metrics.height() / 2
            if top < above:
                continue  # it would overlap the name above: the switch's tooltip names it
            box = QRectF(left, top, metrics.horizontalAdvance(words) + 2, metrics.height())
            painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, words)
            above = box.bottom()
        painter.restore()
