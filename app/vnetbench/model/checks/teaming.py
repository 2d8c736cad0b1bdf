"""Checks of NIC teaming and link aggregation (``teaming_checks``): uplinks that do not carry the same VLANs,
IP hash against port channels, LAGs across unstacked switches, beacon probing and link-status-only detection."""

from __future__ import annotations

from ..teaming_checks import teaming_problems
from .base import CheckerBase


class TeamingChecks(CheckerBase):
    """Teaming policies, LAGs and port channels."""

    def check_teaming(self) -> None:
        """Every teaming finding of the design."""
        self.problems.extend(teaming_problems(self.t, self.fabric))
