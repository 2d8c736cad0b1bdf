"""The rows of the problems panel, made only when the view paints them.

A large design has hundreds of problems (728 warnings at 10,000 VMs). A widget item per problem, with its icon,
colour and four tooltips, cost the GUI thread over 100 ms each time validation reported; this model holds the
list and answers for the rows the view asks about (the few on screen), so showing any number of problems costs
the same.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QIcon
from PySide6.QtWidgets import QStyle, QWidget

from ...model.validate import Problem
from ..colors import SEVERITY_COLORS
from ..plain import tip as plain_tip

HEADERS = ("Severity", "Problem", "Where", "Fix")
#: A problem's object id, on every cell of its row.
ID_ROLE = Qt.ItemDataRole.UserRole
_ICONS = {"error": QStyle.StandardPixmap.SP_MessageBoxCritical,
          "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
          "info": QStyle.StandardPixmap.SP_MessageBoxInformation}


class ProblemsModel(QAbstractTableModel):
    """One row per problem, in the order given: severity, message, where, fix."""

    def __init__(self, style_of: QWidget) -> None:
        super().__init__(style_of)
        self.problems: list[Problem] = []
        self._icons = {s: style_of.style().standardIcon(p) for s, p in _ICONS.items()}
        self._inks = {s: QBrush(QColor(c)) for s, c in SEVERITY_COLORS.items()}

    def set_problems(self, problems: list[Problem]) -> None:
        self.beginResetModel()
        self.problems = problems
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.problems)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        problem = self.problems[index.row()]
        column, severity = index.column(), str(problem.severity)
        if role == Qt.ItemDataRole.DisplayRole:
            return (severity, problem.message, problem.path or "", problem.hint or "")[column]
        if role == ID_ROLE:
            return problem.object_id
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tip(problem.message + (f"\nFix: {problem.hint}" if problem.hint else ""))
        if column == 0 and role == Qt.ItemDataRole.DecorationRole:
            return self._icons.get(severity, QIcon())
        if column == 0 and role == Qt.ItemDataRole.ForegroundRole:
            return self._inks.get(severity, QBrush(QColor("#000000")))
        return None
