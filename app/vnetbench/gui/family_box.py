"""The IPv4 / IPv6 switch of the docks that predict, measure or verify: shown only for a design that uses both
families, so a single-family design keeps its plain controls (and is measured and verified in its own family)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QComboBox, QWidget

from ..model import Change
from ..model.families import ADDRESS_LISTS, Family

#: The fields whose edit can add or remove a family (an interface's addresses).
FAMILY_FIELDS = frozenset(ADDRESS_LISTS)


def may_change_families(change: Change) -> bool:
    """Whether ``change`` may add or remove an address family (another design, an object, an address)."""
    return change.op in ("reset", "insert", "remove") or change.field in FAMILY_FIELDS


class FamilyBox(QComboBox):
    """IPv4 (the default) or IPv6; ``follow`` shows it for a dual-stack design and hides it otherwise."""

    def __init__(self, tooltip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.addItem("IPv4", 4)
        self.addItem("IPv6", 6)
        self.setToolTip(tooltip)
        self.families: list[Family] = [4]
        self.hide()

    @property
    def family(self) -> Family:
        """The family chosen (a single-family design's own family while the box is hidden)."""
        return 6 if self.currentData() == 6 else 4

    @property
    def dual(self) -> bool:
        """Whether the design followed uses both families (the box is shown)."""
        return len(self.families) > 1

    def follow(self, families: list[Family]) -> None:
        """Show the box when the design uses both ``families``, keeping the choice; else choose its one family."""
        self.families = list(families)
        if not self.dual:
            self.choose(self.families[0])
        self.setVisible(self.dual)

    def choose(self, family: int) -> None:
        """Select ``family`` (4 or 6)."""
        self.setCurrentIndex(self.findData(6 if family == 6 else 4))


def follow_later(owner: QWidget, families: Callable[[], list[Family]], follow: Callable[[list[Family]], None]):
    """A function to call on each design change: when one may change the families, ``follow(families())`` runs
    on a later turn of the event loop, once for a burst of changes, so opening a large design does not wait for
    the walk of its interfaces."""
    timer = QTimer(owner)
    timer.setSingleShot(True)
    timer.setInterval(0)
    timer.timeout.connect(lambda: follow(families()))

    def changed(change: Change) -> None:
        if may_change_families(change):
            timer.start()

    return changed
