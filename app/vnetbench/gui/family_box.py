"""The IPv4 / IPv6 switch of the docks that predict, measure or verify: shown only for a design that uses both
families, so a single-family design keeps its plain controls (and is measured and verified in its own family)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QWidget

from ..model import Topology
from ..model.families import ADDRESS_LISTS, Family, families_in

#: The fields whose edit can add or remove a family (an interface's addresses).
FAMILY_FIELDS = frozenset(ADDRESS_LISTS)


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

    def follow(self, topology: Topology) -> None:
        """Show the box when ``topology`` uses both families, keeping the choice; else choose its one family."""
        self.families = families_in(topology)
        if not self.dual:
            self.choose(self.families[0])
        self.setVisible(self.dual)

    def choose(self, family: int) -> None:
        """Select ``family`` (4 or 6)."""
        self.setCurrentIndex(self.findData(6 if family == 6 else 4))
