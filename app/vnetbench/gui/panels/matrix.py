"""The matrix panel: every pair of VMs, coloured by verdict, filterable, a click shows that path.

A thousand VMs make a million cells, so no cell is a widget: a ``QTableView`` asks ``MatrixModel`` for the
cells it paints, and the model reads ``Matrix.verdict`` for those only.

The matrix and what-if docks share one ``LivePrediction`` per workbench: a ``predict.LiveMatrix`` whose
engine is fed every edit and updated on a worker thread after each burst of edits (only the rows and
columns an edit can change are recomputed), together with the verdicts present in each row and column
(which the verdict filter needs) and, when a what-if dock listens, the pairs whose verdict changed.
"""

from __future__ import annotations

import heapq
import weakref
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from PySide6.QtCore import (QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt,
                            Signal)
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import (QComboBox, QDockWidget, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton,
                               QProgressBar, QStyle, QStyleOptionHeader, QTableView, QVBoxLayout, QWidget)

from ...backends import CancelToken, ProgressFn
from ...model import Change
from ...model.text import one_line
from ...model.families import families_in, other
from ...predict import Engine, Matrix, PairChange, Verdict
from ...predict.family import Differing
from ...predict.diff import Edit, compare, describe
from ...predict.live import LiveMatrix
from ...predict.uplinkmarks import MARK, NONE, UplinkMarks, uplink_marks
from ..collector import release_later
from ..colors import VERDICT_COLORS, VERDICT_LABELS, VERDICT_SYMBOLS, VERDICT_TEXT_COLORS, verdict_text
from ..plain import plain, tip as plain_tip
from ..workbench import Snapshot, Workbench, affects_traffic
from ..worker import Latest, Work
from ..family_box import FamilyBox
from .verify import OUTCOME_COLORS, VerifyRunner, failure_text

VERDICTS: tuple[Verdict, ...] = tuple(Verdict)
#: The what-if lists at most this many changed pairs (a tree of a million rows would stall the window).
LISTED = 500
CELL = 22
#: A cell's width when some cells carry the uplink mark beside their symbol.
MARKED_CELL = 34
HEADER_HEIGHT = 90
#: The mark of a cell whose verdict differs between IPv4 and IPv6.
FAMILIES_DIFFER = "≠"
#: The header measures this many of the longest names (in characters) to find the widest.
MEASURED = 32
#: ``verdict_masks`` reads the class table this many rows at a time.
MASK_ROWS = 256


@dataclass(frozen=True)
class MatrixResult:
    """A computed matrix with, per endpoint, a bit mask of the verdicts in its row and in its column, and the
    pairs whose answer depends on the uplink chosen at run time (``predict.uplinkmarks``)."""

    matrix: Matrix
    names: dict[str, str]
    row_masks: tuple[int, ...]
    col_masks: tuple[int, ...]
    counts: dict[Verdict, int]
    uplinks: UplinkMarks = NONE
    family: int = 4                                   # the address family shown
    families: tuple[int, ...] = (4,)                  # those the design uses
    differ: Differing | None = None   # the pairs whose verdict the other family gives differently


@dataclass(frozen=True)
class Update:
    """One recomputation after a burst of edits: the matrix, and the pairs whose verdict changed since the
    matrix it was compared with (None when nobody asked), and how many noted edits it took in."""

    result: MatrixResult
    changes: list[PairChange] | None   # the first ``LISTED`` of them
    changed: int                       # how many pairs in all
    edits_seen: int
    against: Matrix | None = None


def verdict_masks(matrix: Matrix) -> tuple[np.ndarray, np.ndarray]:
    """Per endpoint, a bit mask (bit i: ``VERDICTS[i]``) of the verdicts in its row and in its column.

    Worked out on the matrix's equivalence classes, so a million pairs cost a few class-table operations; a
    cell counts when its classes have endpoints, and a class's own cell only when it has two (a pair is two
    endpoints). The table is read ``MASK_ROWS`` rows at a time: each numpy call on the whole table (5,000
    classes at 10,000 VMs) held the interpreter lock, and so the GUI thread, for up to 300 ms.
    """
    classes, table = matrix.classes, matrix.table
    k = table.shape[0]
    sizes = np.bincount(classes, minlength=k)
    present = sizes > 0
    alone = np.flatnonzero(sizes == 1)
    row_bits = np.zeros(k, dtype=np.int64)
    col_bits = np.zeros(k, dtype=np.int64)
    verdict_bit = np.zeros(256, dtype=np.int16)
    verdict_bit[:len(VERDICTS)] = 1 << np.arange(len(VERDICTS))
    for start in range(0, k, MASK_ROWS):
        stop = min(k, start + MASK_ROWS)
        own = alone[(alone >= start) & (alone < stop)]
        bits = verdict_bit[table[start:stop].view(np.uint8)]     # each cell's verdict as its bit (else none)
        bits *= present[None, :]
        bits[own - start, own] = 0
        row_bits[start:stop] |= np.bitwise_or.reduce(bits, axis=1)
        bits *= present[start:stop, None]
        col_bits |= np.bitwise_or.reduce(bits, axis=0)
    return row_bits[classes], col_bits[classes]


def compute(live: LiveMatrix, progress: ProgressFn, cancel: CancelToken, against: Matrix | None = None,
            edits: tuple[Edit, ...] = (), seen: int = 0) -> Update | None:
    """The matrix after the edits so far (on a worker thread), compared with ``against`` when given; None
    when the design changed meanwhile (ask again)."""
    progress(0, 4, "verdicts for every pair")

    def work(engine: Any, matrix: Matrix) -> Update:
        progress(1, 4, "counting")
        rows, cols = verdict_masks(matrix)
        progress(2, 4, "pairs that depend on the uplink")
        marks = uplink_marks(matrix)
        topology = engine.topology
        names = {vm.id: vm.name for vm in topology.vms}
        names.update({ph.id: ph.name for ph in topology.physical_hosts})
        ends = set(matrix.endpoints)   # (a tuple: 500 hosts looked up in 10,000 endpoints one by one took 100 ms)
        names.update({h.id: h.name for h in topology.hosts if h.id in ends})   # a host OS endpoint
        progress(3, 4, "comparing")
        changes, changed = compare(against, matrix, engine.walker, edits, LISTED) if against is not None \
            else (None, 0)
        families = tuple(families_in(topology))
        shown = engine.family or families[0]
        differ = Differing(matrix, live.matrix_of(other(shown), cancel.check)) if len(families) > 1 else None
        progress(4, 4, "done")
        return Update(MatrixResult(matrix, names, tuple(rows.tolist()), tuple(cols.tolist()), matrix.counts(),
                                   marks, shown, families, differ), changes, changed, seen)

    return live.run(work, cancel.check)


class LivePrediction(QObject):
    """The matrix of one workbench's design, kept current off the GUI thread for the matrix and what-if
    docks (``of(workbench)``). The what-if dock calls ``compare_edits`` and may pin a ``baseline``."""

    started = Signal()
    progress = Signal(int, int, str)
    updated = Signal(object)     # an Update
    failed = Signal(object)

    _shared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @classmethod
    def of(cls, workbench: Workbench) -> LivePrediction:
        found = cls._shared.get(workbench)
        if found is None:
            found = cls._shared[workbench] = cls(workbench)
        return found

    def __init__(self, workbench: Workbench) -> None:
        super().__init__(workbench)
        self.workbench = workbench
        self.live = LiveMatrix(workbench.document)
        self.latest: Update | None = None                 # the last update shown
        self.edits: list[Edit] = []                       # noted since then
        self.comparing = False
        self.baseline: tuple[Matrix | Snapshot, list[Edit]] | None = None   # and the edits since it
        self._pinned_at = 0                                # edits noted before the baseline was pinned
        self._before: Snapshot | None = None              # the design before the first edits, until a matrix
        self._runner = Latest(300, self)
        self._runner.started.connect(self.started)
        self._runner.progress.connect(self.progress)
        self._runner.succeeded.connect(self._computed)
        self._runner.failed.connect(self.failed)
        workbench.designChanged.connect(self._design_changed)

    @property
    def busy(self) -> bool:
        return self._runner.busy

    def compare_edits(self) -> None:
        """From now on every update also lists the pairs whose verdict the edits changed. Until the first
        matrix exists, a copy of the design stands for the state the first edits are compared with."""
        self.comparing = True
        if self.latest is None:
            self._before = self.workbench.snapshot()
            self.schedule(0)

    def pin_baseline(self) -> None:
        """Compare every later update with the design as it is now (its matrix, or a copy while edits are
        still being taken in)."""
        now = self.latest.result.matrix if self.latest is not None and not self.edits and not self.busy \
            else self.workbench.snapshot()
        self.baseline, self._pinned_at = (now, []), len(self.edits)

    def schedule(self, delay_ms: int | None = None) -> None:
        self._runner.schedule(self._work, delay_ms)

    def _design_changed(self, change: Change) -> None:
        if change.op == "reset":
            self.latest, self.edits, self.baseline = None, [], None
            self._before = self.workbench.snapshot() if self.comparing else None
        elif affects_traffic(change):
            edit = describe(change, self.workbench.topology)
            if edit is not None:
                self.edits.append(edit)
        if affects_traffic(change):
            self.schedule()

    def _work(self) -> Work:
        """On the GUI thread once edits settled: what to compare with, and the edits in between."""
        against: Matrix | Snapshot | None = None
        edits = tuple(self.edits)
        if self.comparing and self.baseline is not None:
            against, edits = self.baseline[0], tuple(self.baseline[1]) + edits[self._pinned_at:]
        elif self.comparing and edits:
            against = self.latest.result.matrix if self.latest is not None else self._before
        seen, live = len(self.edits), self.live

        def work(progress: ProgressFn, cancel: CancelToken) -> Update | None:
            before = Engine(against()).matrix() if callable(against) else against
            update = compute(live, progress, cancel, before, edits, seen)
            return update and replace(update, against=before)
        return work

    def _computed(self, update: Update | None) -> None:
        if update is None:   # an edit landed while computing: its turn comes next
            self.schedule(0)
            return
        taken, self.edits = self.edits[:update.edits_seen], self.edits[update.edits_seen:]
        if self.baseline is not None:   # a baseline kept as a copy is kept as its matrix from now on
            against = update.against if callable(self.baseline[0]) else self.baseline[0]
            self.baseline = (against, self.baseline[1] + taken[self._pinned_at:])
            self._pinned_at = max(0, self._pinned_at - update.edits_seen)
        self.latest, self._before = update, None
        self.updated.emit(update)


class MatrixModel(QAbstractTableModel):
    """Rows are sources, columns destinations; only the visible endpoints (after filtering) are rows."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.result: MatrixResult | None = None
        self.visible: list[str] = []
        self.only: Verdict | None = None
        self._fill = {v: QBrush(QColor(VERDICT_COLORS[v])) for v in VERDICTS}
        self._ink = {v: QBrush(QColor(VERDICT_TEXT_COLORS[v])) for v in VERDICTS}
        #: The last verification's cells by (source, destination): their outcome colours the cell.
        self.observed: dict[tuple[str, str], Any] = {}
        self._outcome_fill = {o: QBrush(QColor(c)) for o, c in OUTCOME_COLORS.items()}

    def set_result(self, result: MatrixResult | None, needle: str = "", only: Verdict | None = None) -> None:
        self.beginResetModel()
        self.result = result
        self.only = only
        self.visible = []
        if result is not None:
            needle = needle.strip().lower()
            bit = 1 << VERDICTS.index(only) if only is not None else 0
            for i, end in enumerate(result.matrix.endpoints):
                if needle and needle not in result.names.get(end, end).lower():
                    continue
                if bit and not (result.row_masks[i] | result.col_masks[i]) & bit:
                    continue
                self.visible.append(end)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.visible)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.visible)

    def pair(self, index: QModelIndex | QPersistentModelIndex) -> tuple[str, str] | None:
        if not index.isValid() or index.row() == index.column():
            return None
        return self.visible[index.row()], self.visible[index.column()]

    def verdict(self, index: QModelIndex | QPersistentModelIndex) -> Verdict | None:
        pair = self.pair(index)
        if pair is None or self.result is None:
            return None
        verdict = self.result.matrix.verdict(*pair)
        return verdict if self.only is None or verdict == self.only else None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole,
                        Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole,
                        Qt.ItemDataRole.TextAlignmentRole):
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return Qt.AlignmentFlag.AlignCenter
        verdict = self.verdict(index)
        if verdict is None:
            return None
        pair, result = self.pair(index), self.result
        assert pair is not None and result is not None      # a cell with a verdict has both
        depends = result.uplinks.depends(*pair)
        differs = result.differ is not None and pair in result.differ
        if role == Qt.ItemDataRole.DisplayRole:
            return (FAMILIES_DIFFER if differs else "") + VERDICT_SYMBOLS[verdict] + (MARK if depends else "")
        cell = self.observed.get(pair)
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._outcome_fill.get(cell.outcome, self._fill[verdict]) if cell else self._fill[verdict]
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(QColor("white")) if cell and cell.outcome in self._outcome_fill else self._ink[verdict]
        src, dst = pair
        names = result.names
        tip = f"{names.get(src, src)} → {names.get(dst, dst)}: {VERDICT_LABELS[verdict]}"
        if depends:
            tip += (f"\n{MARK} depends on the uplink chosen at run time: this is the worst of its uplinks "
                    f"(click for the outcome per uplink)")
        if differs:
            tip += (f"\n{FAMILIES_DIFFER} IPv4 and IPv6 differ here: IPv{other(result.family)} answers otherwise "
                    "(switch the family to see it)")
        if cell:
            tip += f"\nverified: {cell.outcome}" + "".join(f"\n{c.what}: {c.detail}" for c in cell.contradictions)
        return plain_tip(tip)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole) or self.result is None:
            return None
        end = self.visible[section]
        name = self.result.names.get(end, end)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(f"from {name}" if orientation == Qt.Orientation.Vertical else f"to {name}")
        return one_line(name)


class RotatedHeader(QHeaderView):
    """A column header whose names read bottom to top, so narrow columns still show whole names."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setDefaultSectionSize(CELL)
        self.setMinimumSectionSize(CELL)

        self._height = CELL

    def fit(self, names: list[str]) -> None:
        """Make the header as tall as the longest name needs, up to ``HEADER_HEIGHT``. Only the names longest
        in characters are measured: measuring ten thousand names takes the window 40 ms."""
        metrics = self.fontMetrics()
        longest = max((metrics.horizontalAdvance(one_line(n)) for n in heapq.nlargest(MEASURED, names, key=len)),
                      default=0)
        self._height = max(CELL, min(HEADER_HEIGHT, longest + 12))
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._height)

    def paintSection(self, painter: QPainter, rect: QRect, section: int) -> None:  # noqa: N802 - Qt's name
        option = QStyleOptionHeader()
        self.initStyleOption(option)
        option.rect, option.section, option.text = rect, section, ""
        self.style().drawControl(QStyle.ControlElement.CE_Header, option, painter, self)
        text = self.model().headerData(section, self.orientation(), Qt.ItemDataRole.DisplayRole) if self.model() else ""
        painter.save()
        painter.translate(rect.left(), rect.bottom())
        painter.rotate(-90)
        text_rect = QRect(4, 0, rect.height() - 8, rect.width())
        elided = painter.fontMetrics().elidedText(str(text or ""), Qt.TextElideMode.ElideRight, text_rect.width())
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), elided)
        painter.restore()


class MatrixDock(QDockWidget):
    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__("Matrix", parent)
        self.setObjectName("MatrixDock")
        self.workbench = workbench

        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter VMs by name")
        self.filter.setClearButtonEnabled(True)
        self.family = FamilyBox(f"The address family the matrix shows; {FAMILIES_DIFFER} marks a pair whose "
                                "verdict the other family gives differently")   # shown as each result says
        self.verdict_filter = QComboBox()
        self.verdict_filter.addItem("every verdict", None)
        for verdict in VERDICTS:
            self.verdict_filter.addItem(verdict_text(verdict), verdict)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.summary = plain(QLabel())
        self.legend = plain(QLabel())
        for label in (self.summary, self.legend):  # a long line wraps: unwrapped, it widened the whole window
            label.setWordWrap(True)
        self.legend.hide()

        self.model = MatrixModel(self)
        self.view = QTableView()
        self.header = RotatedHeader(self.view)
        self.view.setHorizontalHeader(self.header)
        self.view.setModel(self.model)
        self.view.setWordWrap(False)
        self.view.setShowGrid(True)
        for header in (self.view.horizontalHeader(), self.view.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
            header.setDefaultSectionSize(CELL)
            header.setMinimumSectionSize(CELL)
        self.view.verticalHeader().setMaximumWidth(160)
        self.view.clicked.connect(self._clicked)

        self.view.setMinimumHeight(3 * CELL)
        bar = QHBoxLayout()
        bar.addWidget(self.filter, 1)
        bar.addWidget(self.family)
        bar.addWidget(self.verdict_filter)
        bar.addWidget(self.progress)
        self.verify_button = QPushButton("Verify")
        self.verify_button.setToolTip("Probe the deployed design pair by pair and colour each cell: green "
                                      "confirmed, red contradicted (the tooltip says where)")
        bar.addWidget(self.verify_button)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.summary)
        layout.addWidget(self.legend)
        layout.addWidget(self.view, 1)
        self.setWidget(body)

        self.prediction = LivePrediction.of(workbench)
        self.prediction.started.connect(self._started)
        self.prediction.progress.connect(self._progress)
        self.prediction.updated.connect(self._updated)
        self.prediction.failed.connect(self._failed)
        self.result: MatrixResult | None = None
        self.filter.textChanged.connect(self._refilter)
        self.verdict_filter.currentIndexChanged.connect(self._refilter)
        self.family.currentIndexChanged.connect(self._family_chosen)
        self.verifier = VerifyRunner.of(workbench)
        self.verify_button.clicked.connect(  # in the family shown
            lambda: self.verifier.start(self.result.family if self.result is not None else None))
        self.verifier.started.connect(lambda: self.verify_button.setEnabled(False))
        self.verifier.progress.connect(self._progress)
        self.verifier.progress.connect(lambda *_: self.progress.show())
        self.verifier.verified.connect(self._verified)
        self.verifier.failed.connect(self._verify_failed)
        if self.prediction.latest is not None:
            self._updated(self.prediction.latest)
        else:
            self.prediction.schedule(0)

    @property
    def computing(self) -> bool:
        return self.prediction.busy

    def _started(self) -> None:
        self.progress.setRange(0, 0)
        self.progress.setFormat("computing…")
        self.progress.show()

    def _progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(message)

    def _updated(self, update: Update) -> None:
        self.progress.hide()
        # The result replaced may be the last hold on a replaced design's predictor (a million objects at 10,000
        # VMs): it is freed in a turn of the event loop of its own, not within this call.
        release_later(self.result)
        self.result = result = update.result
        self._refilter()
        pairs = sum(result.counts.values())
        parts = [f"{verdict_text(v)}: {n}" for v, n in result.counts.items() if n]
        self.summary.setText(f"{len(result.matrix.endpoints)} VMs, {pairs} pairs. " + " · ".join(parts))
        self.family.setVisible(len(result.families) > 1)
        self.family.blockSignals(True)
        self.family.setCurrentIndex(self.family.findData(result.family))
        self.family.blockSignals(False)
        if result.differ:
            self.summary.setText(self.summary.text() + f"\n{FAMILIES_DIFFER} {len(result.differ):,} pairs answer "
                                 "differently in IPv4 and IPv6")
        marks = result.uplinks
        self.legend.setText(marks.legend)
        self.legend.setVisible(bool(marks) or not marks.complete)
        self.header.setDefaultSectionSize(MARKED_CELL if marks else CELL)   # room for the symbol and the mark

    def _verified(self, verification: Any) -> None:
        self.verify_button.setEnabled(True)
        self.progress.hide()
        self.model.observed = {(c.src, c.dst): c for c in verification.cells}
        self._refilter()
        self.summary.setText(self.verifier.headline(verification))

    def _verify_failed(self, error: BaseException) -> None:
        self.verify_button.setEnabled(True)
        self.progress.hide()
        self.summary.setText(failure_text(error))

    def _failed(self, error: BaseException) -> None:
        self.progress.hide()
        self.summary.setText(f"The matrix could not be computed: {error}")

    def _refilter(self) -> None:
        self.model.set_result(self.result, self.filter.text(), self.verdict_filter.currentData())
        names = self.result.names if self.result is not None else {}
        self.header.fit([names.get(end, end) for end in self.model.visible])

    def _family_chosen(self) -> None:
        """Show the other address family: the matrix is computed again for it."""
        self.prediction.live.set_family(self.family.currentData())
        self.prediction.schedule(0)

    def _clicked(self, index: QModelIndex) -> None:
        pair = self.model.pair(index)
        if pair is not None:
            self.workbench.request_pair(*pair)
