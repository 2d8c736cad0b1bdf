"""The what-if panel: which pairs an edit changed, and why, in the admin's words.

After each burst of edits the shared ``LivePrediction`` (see the matrix panel) updates the matrix
incrementally and compares it with the matrix before the edits, or with a baseline the user pinned ("Set
baseline"). Pairs whose verdict changed are listed with the before and after verdicts and a sentence saying
which edit touched them and what happens now ("app01 moved from VLAN 300 to 301: now routed via
core-sw1-l3"); clicking one shows its path. A large change lists its first pairs (``LISTED``) and counts the rest.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QDockWidget, QHBoxLayout, QLabel, QPushButton, QTreeWidget, QTreeWidgetItem,
                               QVBoxLayout, QWidget)

from ...model import Change
from ...predict import PairChange
from ..colors import VERDICT_TEXT_COLORS, verdict_color, verdict_text
from ..plain import plain, tip as plain_tip
from ..workbench import Workbench
from .matrix import LISTED, LivePrediction, Update

PAIR_ROLE = Qt.ItemDataRole.UserRole


class WhatIfDock(QDockWidget):
    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__("What if", parent)
        self.setObjectName("WhatIfDock")
        self.workbench = workbench
        self.changes: list[PairChange] = []
        self._baseline_time = ""

        self.against = QLabel()
        self.against.setWordWrap(True)
        self.set_baseline = QPushButton("Set baseline")
        self.set_baseline.setToolTip("Compare every later edit with the design as it is now")
        self.clear_baseline = QPushButton("Clear baseline")
        self.clear_baseline.setToolTip("Compare each edit with the state just before it")
        self.summary = plain(QLabel("No edit yet."))
        self.summary.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["Pair", "Before", "After", "Why"])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.itemClicked.connect(self._clicked)

        buttons = QHBoxLayout()
        buttons.addWidget(self.set_baseline)
        buttons.addWidget(self.clear_baseline)
        buttons.addStretch(1)
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.against)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(self.tree, 1)
        self.setWidget(body)

        self.prediction = LivePrediction.of(workbench)
        self.prediction.compare_edits()
        self.prediction.updated.connect(self._updated)
        self.prediction.failed.connect(self._failed)
        self.set_baseline.clicked.connect(self.pin_baseline)
        self.clear_baseline.clicked.connect(self.unpin_baseline)
        workbench.designChanged.connect(self._design_changed)
        self._show_against()

    @property
    def computing(self) -> bool:
        return self.prediction.busy

    def pin_baseline(self) -> None:
        """Compare with the design as it is now until the baseline is cleared."""
        self.prediction.pin_baseline()
        self._baseline_time = time.strftime("%H:%M:%S")
        self._show_against()
        self._show([], "Baseline set: edits from now on are compared with it.")

    def unpin_baseline(self) -> None:
        self.prediction.baseline = None
        self._show_against()
        self._show([], "Each edit is now compared with the state before it.")

    def _show_against(self) -> None:
        pinned = self.prediction.baseline is not None
        self.against.setText(f"Compared with the baseline set at {self._baseline_time}." if pinned
                             else "Compared with the state before the last edit.")
        self.clear_baseline.setEnabled(pinned)

    def _design_changed(self, change: Change) -> None:
        if change.op == "reset":
            self._show_against()
            self._show([], "A new design: no edit yet.")

    def _updated(self, update: Update) -> None:
        if update.changes is None:
            return
        changed = update.changed
        text = (f"{changed} pair{'s' if changed != 1 else ''} changed verdict." if changed
                else "No pair changed verdict.")
        if changed > len(update.changes):
            text += f" The first {LISTED} are listed."
        self._show(update.changes, text)

    def _failed(self, error: BaseException) -> None:
        self.summary.setText(f"Could not compare: {error}")

    def _show(self, changes: list[PairChange], text: str) -> None:
        self.changes = changes
        self.summary.setText(text)
        self.tree.clear()
        index = self.workbench.document.index
        items = []
        for change in changes:
            src = getattr(index.get(change.src), "name", change.src)
            dst = getattr(index.get(change.dst), "name", change.dst)
            item = QTreeWidgetItem([f"{src} → {dst}", verdict_text(change.before), verdict_text(change.after),
                                    "; ".join(change.what)])
            for column, verdict in ((1, change.before), (2, change.after)):
                if verdict is not None:
                    item.setBackground(column, QBrush(QColor(verdict_color(verdict))))
                    item.setForeground(column, QBrush(QColor(VERDICT_TEXT_COLORS[str(verdict)])))
            item.setToolTip(3, plain_tip("\n".join(change.what)))
            item.setData(0, PAIR_ROLE, (change.src, change.dst))
            items.append(item)
        self.tree.addTopLevelItems(items)
        for column in range(3):
            self.tree.resizeColumnToContents(column)

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        pair = item.data(0, PAIR_ROLE)
        if pair:
            self.workbench.request_pair(*pair)
