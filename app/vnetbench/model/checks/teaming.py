"""Checks of NIC teaming and link aggregation (``teaming_checks``): uplinks that do not carry the same VLANs,
IP hash against port channels, LAGs across unstacked switches, beacon probing and link-status-only detection;
and private VLANs (``pvlan_checks``)."""

from __future__ import annotations

from ..pvlan_checks import pvlan_problems
from ..teaming_checks import teaming_problems
from .base import CheckerBase


class TeamingChecks(CheckerBase):
    """Teaming policies, LAGs, port channels and private VLANs."""

    def check_teaming(self) -> None:
        """Every teaming finding of the design."""
        self.problems.extend(teaming_problems(self.t, self.fabric))
        self.problems.extend(pvlan_problems(self.t, self.fabric))
