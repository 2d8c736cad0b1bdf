"""Path prediction: how traffic between two endpoints travels and why, without Qt.

``predict`` answers one pair; ``Engine`` caches the compiled network, answers the all-pairs ``Matrix`` on
equivalence classes and recomputes after edits; ``diff`` compares two designs pair by pair. A single pair's
reasons tell every decision of the walk in one sentence each, by name (``explain``); the matrix and what-if
keep only the reasons of failures, so they never pay for the wording. Every rule that turns facts into a
verdict lives once in ``decide``, which the walk and the matrix both call, so the two cannot disagree; an
answer carries its firewall and routing decisions as typed ``Step``s.

The rules are stated in ``resources/docs/forwarding-rules.md`` (section numbers as cited in the code); the
layer-2 facts are ``model.forwarding``'s. Where the platforms leave room, the engine chooses (the docs page lists
the same choices):
- No protocol given means a conversation: both directions must deliver. Rules that name a protocol or port
  do not match it (a rule about tcp/22 says nothing about traffic in general).
- A reply passes a stateful firewall (or a stateful DFW) on the connection's state; a stateful firewall on
  only one of the two directions drops the conversation; a stateless one judges the reply by its rules with
  an ephemeral (unknown) port. UDP and ICMP take the forward direction only.
- An endpoint with several addresses is reached at the one in a subnet the source shares, else the first
  that delivers. The sender uses the gateway of its first interface with an address and a segment. Traffic
  addressed to a gateway's own address is received there, not routed.
- A portgroup's teaming override applies to its VLAN's segment (the first such portgroup wins); a pNIC
  without a cable, or on a port that is down, counts as down.
- VMs on one hosted-bridged network of one host meet inside the host. Hosted NAT lets guests out, translated to
  the host OS's address on its pNIC and routed through the host's gateway when the design gives them (else
  through a router on the host's LAN), and hides them from outside (no port forwarding); replies return through
  its connection tracking. The host's own address never routes for others.
- A configured DFW (rules or a default deny) applies at every VM vNIC its rules are applied to; SR-IOV and
  DirectPath adapters bypass it.
- Physical hosts' NICs and router interfaces take the MTU of the port they plug into.
"""

import sys
import types
from typing import Any

from .diff import diff
from .engine import Engine, predict
from .result import Estimate, Flow, Hop, HopKind, PairChange, Prediction, Trace, Verdict

__all__ = ["Engine", "Estimate", "Flow", "Hop", "HopKind", "Matrix", "PairChange", "Prediction", "Trace", "Verdict",
           "diff", "predict"]


def __getattr__(name: str) -> Any:
    """``Matrix`` loads numpy: imported when first used, so one prediction starts without it."""
    if name != "Matrix":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .matrix import Matrix

    globals()["Matrix"] = Matrix
    return Matrix


class _CallablePackage(types.ModuleType):
    """``vnetbench.predict`` names this package, so the notebook API's ``vnetbench.predict(design, src, dst)``
    is the package called: it forwards to ``vnetbench.api.predict``."""

    def __call__(self, design: Any, src: str, dst: str, proto: str | None = None, port: int | None = None) -> Any:
        from ..api import predict as predict_design

        return predict_design(design, src, dst, proto, port)


sys.modules[__name__].__class__ = _CallablePackage
