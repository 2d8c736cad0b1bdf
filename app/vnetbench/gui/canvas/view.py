"""The canvas view: zoom (wheel, keys, fit), pan (middle button or space + drag), the grid, palette drops."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRect, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QKeyEvent, QMouseEvent, QPainter, QPen, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from ..colors import canvas_theme
from .geometry import GRID
from .items import OVERVIEW_LOD
from .scene import DesignScene

PALETTE_MIME = "application/x-vnetbench-palette"
MIN_ZOOM, MAX_ZOOM = 0.03, 4.0


class DesignView(QGraphicsView):
    #: A double-click on an object: the window puts the inspector's focus on it.
    editRequested = Signal()

    def __init__(self, scene: DesignScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.design = scene
        self.show_grid = True
        self._pan_from: QPointF | None = None
        self._space = False
        self.setAcceptDrops(True)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.ContainsItemShape)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setSceneRect(QRectF(-4000, -4000, 10000, 8000))
        scene.focusRequested.connect(self.show_rect)
        scene.overlay.moved.connect(self.viewport().update)  # the badge is the view's: drawn again with the path
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.valueChanged.connect(self._scrolled)

    # --- zoom ------------------------------------------------------------------------------------------

    def zoom(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        target = min(MAX_ZOOM, max(MIN_ZOOM, self.zoom() * factor))
        factor = target / self.zoom()
        if abs(factor - 1) > 1e-6:
            self.scale(factor, factor)
            self.resetCachedContent()
        self._detail()

    def zoom_in(self) -> None:
        self.zoom_by(1.25)

    def zoom_out(self) -> None:
        self.zoom_by(1 / 1.25)

    def zoom_actual(self) -> None:
        self.zoom_by(1 / self.zoom())

    def fit(self) -> None:
        """Show the whole design (Ctrl+0)."""
        self.fit_rect(self.design.design_rect())

    def fit_rect(self, rect: QRectF) -> None:
        """Show ``rect`` of the scene whole (at most at 100%), with the level of detail of that zoom."""
        if rect.isEmpty():
            self.resetTransform()
            self.centerOn(0, 0)
            return
        rect = rect.adjusted(-40, -40, 40, 40)
        self.setSceneRect(self.sceneRect().united(rect.adjusted(-4000, -4000, 4000, 4000)))
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.zoom() > 1.0:
            self.zoom_by(1.0 / self.zoom())
        self.centerOn(rect.center())
        self.resetCachedContent()
        self._detail()

    def _detail(self) -> None:
        """Far out, thousands of hairlines: no antialiasing and no handles, so the overview stays quick."""
        overview = self.zoom() < OVERVIEW_LOD
        self.setRenderHint(QPainter.RenderHint.Antialiasing, not overview)
        self.design.set_overview(overview)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            super().wheelEvent(event)
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(math.pow(1.15, steps))
        event.accept()

    def show_rect(self, rect: QRectF) -> None:
        """Scroll so that ``rect`` is in view (a problem or a hop picked in a panel)."""
        self.setSceneRect(self.sceneRect().united(rect.adjusted(-400, -400, 400, 400)))
        self.ensureVisible(rect, 60, 60)

    # --- pan ---------------------------------------------------------------------------------------------

    NUDGE = {Qt.Key.Key_Left: (-1, 0), Qt.Key.Key_Right: (1, 0), Qt.Key.Key_Up: (0, -1), Qt.Key.Key_Down: (0, 1)}

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        if event.key() in self.NUDGE and not event.modifiers() & ~(
                Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier):
            step = 1.0 if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else GRID
            dx, dy = self.NUDGE[event.key()]
            if self.design.nudge(dx * step, dy * step):
                event.accept()
                return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().unsetCursor()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        """Double-click an object: edit it (the inspector takes the focus, on its name or text)."""
        if event.button() == Qt.MouseButton.LeftButton and self.design.selected_ids():
            self.editRequested.emit()
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.MiddleButton or (
                self._space and event.button() == Qt.MouseButton.LeftButton):
            self._pan_from = event.position()
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            delta = event.position() - self._pan_from
            self._pan_from = event.position()
            self.pan_by(delta.x(), delta.y())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def pan_by(self, dx: float, dy: float) -> None:
        self.horizontalScrollBar().setValue(int(self.horizontalScrollBar().value() - dx))
        self.verticalScrollBar().setValue(int(self.verticalScrollBar().value() - dy))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan_from is not None:
            self._pan_from = None
            if self._space:
                self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            else:
                self.viewport().unsetCursor()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # --- the path's verdict badge ----------------------------------------------------------------------------

    def path_badge(self) -> QRectF | None:
        """Where the shown path's verdict badge is in the viewport (always inside it), or None."""
        return self.design.overlay.badge_rect(QRectF(self.viewport().rect()), lambda p: QPointF(self.mapFromScene(p)))

    def drawForeground(self, painter: QPainter, rect: QRectF | QRect) -> None:
        super().drawForeground(painter, rect)
        box = self.path_badge()
        if box is not None:
            painter.save()
            painter.resetTransform()  # view pixels: the badge stays readable at any zoom
            self.design.overlay.paint_badge(painter, box)
            painter.restore()

    def _scrolled(self) -> None:
        """A scroll only redraws what came into sight; the badge, held inside the view, moved everywhere."""
        if self.design.overlay.prediction is not None:
            self.viewport().update()

    # --- grid ----------------------------------------------------------------------------------------------

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        super().drawBackground(painter, rect)
        if not self.show_grid:
            return
        step = GRID if self.zoom() >= 0.6 else GRID * 5
        if step * self.zoom() < 6:
            return
        left, top = math.floor(rect.left() / step) * step, math.floor(rect.top() / step) * step
        theme = canvas_theme()
        minor, major = QColor(theme.grid_minor), QColor(theme.grid_major)
        x = left
        while x < rect.right():
            painter.setPen(QPen(major if round(x / GRID) % 5 == 0 else minor, 0))
            painter.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
            x += step
        y = top
        while y < rect.bottom():
            painter.setPen(QPen(major if round(y / GRID) % 5 == 0 else minor, 0))
            painter.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
            y += step

    def set_grid(self, on: bool) -> None:
        self.show_grid = on
        self.resetCachedContent()
        self.viewport().update()

    # --- drops from the palette ---------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(PALETTE_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasFormat(PALETTE_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        if not event.mimeData().hasFormat(PALETTE_MIME):
            event.ignore()
            return
        key = bytes(event.mimeData().data(PALETTE_MIME).data()).decode()
        event.acceptProposedAction()
        self.drop(key, self.mapToScene(event.position().toPoint()))

    def drop(self, key: str, pos: QPointF) -> str | None:
        """Add a palette entry at scene point ``pos`` (the drop's code path; also used by double-click)."""
        oid = self.design.drop(key, pos)
        if oid is not None:
            self.setFocus()
        return oid
