"""What every part of the walk shares: the compiled network, the calibration, the rule book, the route tables."""

from __future__ import annotations

from ..model.objects import Action
from . import decide
from .calibration import Calibration
from .network import Network
from .rules import Decision, Party, RuleBook


class WalkerBase:
    """The state of one walker over one compiled network; ``Walker`` puts its parts together."""

    def __init__(self, network: Network, calibration: Calibration) -> None:
        self.net = network
        self.cal = calibration
        self.dfw = network.topology.nsx.dfw
        self.rulebook = RuleBook(self.dfw)
        self._route_tables: dict[str, decide.RouteTable] = {}

    def judge(self, owner: str, rules: list, default: Action, src: Party, dst: Party, proto: str | None,
              port: int | None) -> Decision:
        """A firewall's verdict on a packet (first match, then its default policy); ``owner`` is the id of
        the router, firewall VM or bridged VM whose rules they are (the matrix records who judges)."""
        return self.rulebook.evaluate(rules, default, src, dst, proto, port)
