"""The overview map: the whole design small in a corner of the canvas, the visible part framed; click or drag
in it to move the view there.

It draws only the top-level boxes (hosts, physical switches, routers, unattached objects) from the scene's
items, so it stays cheap on a 10,000-VM design, and shows itself only while the design is larger than the view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from ..colors import canvas_theme
from .items import family_colours

if TYPE_CHECKING:
    from .view import DesignView

SIZE = (240, 170)
MARGIN = 12


class Minimap(QWidget):
    def __init__(self, view: DesignView) -> None:
        super().__init__(view.viewport())
        self.view = view
        self.enabled = True
        self.world = QRectF()
        self.boxes: list[tuple[QRectF, str]] = []  # (scene rect, item family): coloured in the theme of the moment
        self.resize(*SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view")
        self._stale = True
        self._timer = QTimer(self)
        self._timer.setInterval(120)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.refresh)
        view.horizontalScrollBar().valueChanged.connect(self.schedule)
        view.verticalScrollBar().valueChanged.connect(self.schedule)
        view.design.drawn.connect(self._scene_changed)
        view.viewport().installEventFilter(self)
        self.hide()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.schedule()
        return False

    def _scene_changed(self, *_: object) -> None:
        self._stale = True
        self.schedule()

    def schedule(self, *_: object) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        self.refresh()

    def visible_rect(self) -> QRectF:
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    def refresh(self) -> None:
        """Collect the top-level boxes (when the scene changed), then show or hide and repaint."""
        scene = self.view.design
        if self._stale:
            self._stale = False
            self.boxes = []
            world = QRectF()
            for item in scene.nodes.values():
                if item.oid in scene.inner or not hasattr(item, "size"):
                    continue
                rect = item.mapRectToScene(item.size)
                self.boxes.append((rect, getattr(item, "family", "note")))
                world = world.united(rect)
            self.world = world
        viewport = self.view.viewport()
        self.move(viewport.width() - SIZE[0] - MARGIN, viewport.height() - SIZE[1] - MARGIN)
        larger = not self.world.isEmpty() and not self.visible_rect().contains(self.world)
        self.setVisible(self.enabled and larger)
        self.update()

    def _transform(self) -> tuple[float, float, float]:
        """Scale and offset from scene to map coordinates (the whole design fits, centred)."""
        inner = QRectF(self.rect()).adjusted(6, 6, -6, -6)
        world = self.world
        scale = min(inner.width() / max(world.width(), 1), inner.height() / max(world.height(), 1))
        dx = inner.left() + (inner.width() - world.width() * scale) / 2 - world.left() * scale
        dy = inner.top() + (inner.height() - world.height() * scale) / 2 - world.top() * scale
        return scale, dx, dy

    def to_scene(self, point: QPointF) -> QPointF:
        scale, dx, dy = self._transform()
        return QPointF((point.x() - dx) / scale, (point.y() - dy) / scale)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        theme = canvas_theme()
        background = QColor(theme.background)
        background.setAlpha(230)
        p.fillRect(self.rect(), background)
        p.setPen(QPen(QColor(theme.subtext), 1))
        p.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        scale, dx, dy = self._transform()
        for rect, family in self.boxes:
            fill, border, _ = family_colours(family)
            r = QRectF(rect.left() * scale + dx, rect.top() * scale + dy, max(1.0, rect.width() * scale),
                       max(1.0, rect.height() * scale))
            p.fillRect(r, fill)
            p.setPen(QPen(border, 0))
            p.drawRect(r)
        seen = self.visible_rect()
        frame = QRectF(seen.left() * scale + dx, seen.top() * scale + dy, seen.width() * scale, seen.height() * scale)
        p.setPen(QPen(QColor("#1e6fff"), 2))
        p.setBrush(QColor(30, 111, 255, 40))
        p.drawRect(frame.intersected(QRectF(self.rect())))
        p.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.view.centerOn(self.to_scene(event.position()))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.view.centerOn(self.to_scene(event.position()))
        event.accept()
