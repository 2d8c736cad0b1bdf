"""Opening a design in the background: the window paints and answers while a large file is read and drawn.

A small file (most hand-made designs) opens at once, as before. A large one is read, checked and laid out in a
child process (``offload``: a worker thread would hold the interpreter lock the GUI thread needs), waited for by
a worker thread (``Task``), while the status bar shows what is happening and how far along; then the canvas draws
it in slices of a few tens of milliseconds (``DesignScene.sync_gradually``), so the window repaints and takes
input between slices; a large design being replaced goes the same way, whatever the size of the new one. The
worker also makes what the docks would otherwise make on the GUI thread: the design's pickle (their snapshots),
its id index and the address families it uses (the family switches). The design is left out of later full
collections once read and drawn (``collector.settle``). Closing the window (Ctrl+Q) during an open quits at
once: the worker is a daemon thread, its child process a daemon one, and nothing waits on them.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QRectF, QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QSizePolicy

from ..backends import Cancelled
from ..model import Index, TopologyFileError, load
from ..model.families import families_in
from .canvas.layout import remember, remembered
from .collector import settle
from .jobs import read_and_lay_out
from .offload import in_process, loads
from .turns import in_turn
from .worker import Task, background_hold

#: Files at least this large open in the background.
BACKGROUND_BYTES = 512 * 1024
#: A design drawn with this many items is replaced in the background too, whatever the new file's size: the
#: canvas removes its items a slice at a time.
LARGE_SCENE = 2000
#: Seconds of drawing per turn of the event loop: the window answers between slices.
SLICE = 0.03


def planned_rect(topology) -> QRectF:
    """The rectangle the laid-out design will cover: its top-level boxes' places (what they hold is inside)."""
    diagram = remembered(topology)
    places = topology.layout.places
    tops = [places[b.id] for b in diagram.boxes if b.parent is None and b.id in places] if diagram else []
    if not tops:
        return QRectF()
    left, top = min(p.x for p in tops), min(p.y for p in tops)
    right, bottom = max(p.x + (p.w or 0) for p in tops), max(p.y + (p.h or 0) for p in tops)
    return QRectF(left, top, right - left, bottom - top)


class Opener(QObject):
    #: (path, seconds from the start to the whole design drawn)
    opened = Signal(str, float)
    failed = Signal(str)

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.task: Task | None = None
        self.busy = False
        # The progress must not change the window's geometry: a status bar one pixel taller, or a window widened
        # to fit the label's text, resizes the canvas, and the design being replaced (10,000 VMs) is painted
        # whole again, twice in one turn of the event loop (over 100 ms). The bar is no taller than a line of
        # text and the label takes the width the status bar has, eliding nothing the person needs.
        self.label = QLabel()
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(220)
        self.bar.setMaximumHeight(self.label.fontMetrics().height())
        self.bar.setTextVisible(False)
        self.pending: tuple[str, bool, float] = ("", False, 0.0)
        window.installEventFilter(self)

    def open(self, path: str, example: bool = False) -> bool:
        """Open ``path`` (an example opens untitled); True when it opened, or started to in the background."""
        background_hold().release()   # a design still being drawn is replaced: nothing waits for it any more
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        if size < BACKGROUND_BYTES and len(self.window.scene.nodes) < LARGE_SCENE:
            try:
                topology = load(path)
            except TopologyFileError as exc:
                self._fail(str(exc), example)
                return False
            self.window.finish_open(topology, path, example)
            return True
        return self._open_in_background(path, example)

    def _open_in_background(self, path: str, example: bool) -> bool:
        if self.task is not None and self.task.running:
            self.task.cancel()
        started = time.perf_counter()
        name = Path(path).name
        self.busy = True
        background_hold().hold()  # the docks wait for the new design (and the collector for it to settle)
        self._show(f"Opening {name}: reading\u2026", 0, 0)

        def work(progress, cancel):
            data, laid_out = in_process(read_and_lay_out, path, cancel=cancel)
            progress(1, 2, f"Opening {name}: taking it in\u2026")
            topology = loads(data)
            remember(topology, loads(laid_out))
            cancel.check()
            return topology, planned_rect(topology), data, Index(topology), families_in(topology)

        self.pending = (path, example, started)
        task = Task(work)
        task.progress.connect(self._progressed)
        task.succeeded.connect(self._draw)
        task.failed.connect(self._failed)
        self.task = task
        task.start()
        return True

    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close and self.task is not None:
            self.task.cancel()  # closing during an open: the worker stops at its next step, nothing is drawn
            if self.busy:  # (and nothing of this window will release the hold once it is gone)
                self.busy = False
                background_hold().release()
        return False

    def _progressed(self, done: int, total: int, text: str) -> None:
        self._show(text, done, total)

    def _failed(self, exc: BaseException) -> None:
        self._fail(str(exc) if not isinstance(exc, Cancelled) else "Cancelled", self.pending[1])

    def _draw(self, laid_out: tuple) -> None:
        topology, rect, data, index, families = laid_out
        path, example, started = self.pending
        if self.task is not None and self.task.token.cancelled or not self.window.isVisible():
            self._fail("Cancelled", example)
            return
        name = Path(path).name
        scene = self.window.scene

        def progress(done: int, total: int) -> None:
            settle()  # what this slice made is left out of later collections too
            # Shown on a turn of its own: the bar repaints at once (``QProgressBar.setValue``), and with it all of
            # the window that is due, the canvas with the slice just drawn (30-60 ms more in the slice's turn).
            in_turn(lambda: show(done, total))

        def show(done: int, total: int) -> None:
            if self.busy and self.pending[0] == path:   # (not drawn, or replaced by another open, meanwhile)
                self._show(f"Opening {name}: drawing {done:,} of {total:,}\u2026", done, total)

        def drawn() -> None:
            scene.drawn.disconnect(drawn)
            self.busy = False
            self._hide()
            self.window.view.fit()
            settle()  # full collections skip the design from now on (``collector``)
            self.opened.emit(path, time.perf_counter() - started)
            QTimer.singleShot(100, background_hold().release)   # after the fitted view's first paint

        scene.gradually = (SLICE, progress)
        scene.drawn.connect(drawn)
        settle()  # the design just read is left out of the collections while it is drawn
        background_hold().hold()     # the docks' recomputations start once the design is drawn
        self.window.workbench.captured(topology, data, index, families)
        self.window.finish_open(topology, path, example)
        # Zoomed to where the design will be before a box is drawn: far out, the boxes inside hosts are made
        # hidden, rather than made and then hidden all at once when the drawing is fitted.
        self.window.view.fit_rect(rect)

    def _show(self, text: str, done: int, total: int) -> None:
        """The progress in the status bar (its widgets are there only while an open is under way)."""
        if not self.label.isVisible():
            self.window.statusBar().addWidget(self.label, 1)
            self.window.statusBar().addWidget(self.bar)
            self.label.show()
            self.bar.show()
        self.label.setText(text)
        self.bar.setRange(0, total)
        self.bar.setValue(done)

    def _hide(self) -> None:
        if self.label.isVisible():
            self.window.statusBar().removeWidget(self.label)
            self.window.statusBar().removeWidget(self.bar)

    def _fail(self, message: str, example: bool) -> None:
        background_hold().release()
        self.busy = False
        self._hide()
        if "Cancelled" in message:
            return
        self.window.tell_error("Cannot open the example" if example else "Cannot open the design", message)
        self.failed.emit(message)
