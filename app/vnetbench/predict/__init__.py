"""Path prediction: how traffic between two endpoints travels and why (SEMANTICS.md), without Qt.

``predict`` answers one pair; ``Engine`` caches the compiled network, answers the all-pairs ``Matrix`` on
equivalence classes and recomputes after edits; ``diff`` compares two designs pair by pair. A single pair's
reasons tell every decision of the walk in one sentence each, by name (``explain``); the matrix and what-if
keep only the reasons of failures, so they never pay for the wording.

Where SEMANTICS.md is silent the engine does what the platforms do:
- No protocol given means a conversation: both directions must deliver. Rules that name a protocol or port
  do not match it (a rule about tcp/22 says nothing about traffic in general).
- A reply passes a stateful firewall (or a stateful DFW) on the connection's state; a stateful firewall on
  only one of the two directions drops the conversation; a stateless one judges the reply by its rules with
  an ephemeral (unknown) port. UDP and ICMP take the forward direction only.
- An endpoint with several addresses is reached at the one in a subnet the source shares, else the first
  that delivers. Traffic addressed to a gateway's own address is received there, not routed.
- Untagged frames on a trunk port join its native VLAN only when the allowed list carries it. A guest that
  tags frames on a non-trunk portgroup is dropped. On a trunk portgroup untagged guest frames join the VLAN
  none segment (vSS) or the portgroup's native VLAN (vDS, OVS).
- A portgroup's teaming override applies to its VLAN's segment (the first such portgroup wins); a pNIC
  without a cable, or on a port that is down, counts as down.
- VMs on one hosted-bridged network of one host meet inside the host. Hosted NAT lets guests out (routed by
  the NAT service through the host's pNIC) and hides them from outside (no port forwarding); replies return
  through its connection tracking.
- An NSX segment is one instance per member host joined by an overlay through each host's transport pNIC
  (its uplink on that host, else the host's first pNIC). A configured DFW (rules or a default deny) applies at
  every VM vNIC its rules are applied to.
"""

from typing import Any

from .diff import diff
from .engine import Engine, predict
from .result import Estimate, Hop, PairChange, Prediction, Trace, Verdict

__all__ = ["Engine", "Estimate", "Hop", "Matrix", "PairChange", "Prediction", "Trace", "Verdict", "diff", "predict"]


def __getattr__(name: str) -> Any:
    """``Matrix`` loads numpy: imported when first used, so one prediction starts without it."""
    if name != "Matrix":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .matrix import Matrix

    globals()["Matrix"] = Matrix
    return Matrix
