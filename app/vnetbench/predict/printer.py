"""The printed form of a prediction: one wording for the CLI (``vnetbench predict``), the path dock and
``str(prediction)``. Works on the typed answer alone (names travel in the hops and the flow)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..model.text import one_line

if TYPE_CHECKING:
    from .result import Prediction, Trace


#: A hop's kind as a sentence names it (the kinds are ``HopKind`` values).
HOP_KINDS = {"vnic": "vNIC", "host_nic": "host NIC", "portgroup": "portgroup", "switch": "virtual switch",
             "embedded_switch": "pNIC's embedded switch (SR-IOV)", "pnic": "physical NIC (pNIC)",
             "port": "physical switch port", "physical_switch": "physical switch", "overlay": "overlay tunnel",
             "router_interface": "router interface", "router": "router", "firewall": "firewall",
             "dlr": "distributed logical router", "nat": "NAT"}


def hop_kind(kind: str) -> str:
    """``HOP_KINDS[kind]``; an unknown kind (a newer file) as it is, underscores as spaces."""
    return HOP_KINDS.get(str(kind), str(kind).replace("_", " "))


def pnic_names(trace: Trace) -> list[str]:
    """The pNICs the trace crosses, by the names its hops carry (``esx01/vmnic0``); one crossed out and straight
    back in (to a router on a stick, through a hairpin) is named once, "out and back"."""
    named = {hop.object_id: hop.name for hop in trace.hops if hop.kind == "pnic"}
    out: list[str] = []
    for i, pnic in enumerate(trace.pnics):
        if i and trace.pnics[i - 1] == pnic and not out[-1].endswith(")"):
            out[-1] += " (out and back)"
        else:
            out.append(named.get(pnic, pnic))
    return out


def largest_packet(mtu: int | None, where: str) -> str:
    """The largest packet in words, and where one byte more is dropped."""
    if mtu is None:
        return ""
    return f"{mtu} bytes" + (f"; one byte more is dropped at {where}" if where else "")


#: The packet-rate figures' attachments, as a person names them.
SENDERS = {"physical": "physical host", "tap_bridge": "qemu guest on tap + bridge", "macvtap": "qemu guest on macvtap",
           "raw_af_packet": "qemu guest on a raw AF_PACKET attachment"}


def estimate(trace: Trace) -> str:
    """A trace's estimate in words: throughput, latency, packet rate and where the figures come from."""
    est = trace.estimate
    parts = []
    if est.throughput_mbps is not None:
        measured = f" (measured rounds {est.spread_mbps[0]:,.0f}-{est.spread_mbps[1]:,.0f})" if est.spread_mbps else ""
        parts.append(f"{est.throughput_mbps:,.0f} Mbit/s{measured}"
                     + (f", bottleneck {est.bottleneck}" if est.bottleneck else ""))
    if est.packet_rate_pps is not None:
        rounds = est.packet_rate_spread
        parts.append(f"small UDP {est.packet_rate_pps:,.0f} packets/s from a {SENDERS.get(est.sender, est.sender)}"
                     + (f" (measured rounds {rounds[0]:,.0f}-{rounds[1]:,.0f})" if rounds else ""))
    if est.latency_us is not None:
        parts.append(f"+{est.latency_us} us added latency")
    if parts and est.source:
        parts.append(f"calibration {est.source}")
    return "; ".join(parts)


def facts(trace: Trace, rules: tuple[str, ...] | None = None, mtu: tuple[int | None, str] | None = None
          ) -> list[tuple[str, str]]:
    """(title, text) rows about one direction: pNICs, routers, matched rules, largest packet, estimate."""
    delivered = trace.verdict.delivered
    rows = [("pNICs crossed", ", ".join(pnic_names(trace)) or "none")]
    if trace.routed_by:
        rows.append(("routed by", ", ".join(trace.routed_by) + ("" if delivered else " (before it stopped)")))
    elif delivered:
        rows.append(("routed by", "nothing (switched only)"))
    rows += [("rule", rule) for rule in (trace.rules if rules is None else rules)]
    packet = largest_packet(*(mtu or (trace.mtu, trace.mtu_limit)))
    if packet:
        rows.append(("largest packet", packet))
    if estimate(trace):
        rows.append(("estimate", estimate(trace)))
    return rows


def details(p: Prediction) -> list[tuple[str, str]]:
    """The facts of a flow for a panel: the forward direction's, with both directions' rules and the flow's
    largest packet."""
    rules = tuple(dict.fromkeys([*p.forward.rules, *p.reverse.rules]))
    return facts(p.forward, rules, p.mtu)


def _trace_lines(title: str, trace: Trace, told: tuple[str, ...] = ()) -> list[str]:
    lines = [f"{title}: {trace.verdict}"]
    for i, hop in enumerate(trace.hops, 1):
        detail = f"  ({hop.detail})" if hop.detail else ""
        lines.append(f"  {i:2d}  {hop.kind:<16} {hop.name}{detail}")
    lines += [f"  {name}: {text}" for name, text in facts(trace)]
    if trace.reasons and trace.reasons == told:
        lines.append("  why: as above")
    elif trace.reasons:
        lines.append("  why:")
        lines += [f"    - {reason}" for reason in trace.reasons]
    return lines


def render(p: Prediction) -> str:
    """The whole answer as text: verdict, reasons, then each direction hop by hop. Each line is one
    printable line (``one_line``): a name with a line break or an escape sequence stays inside its line."""
    lines = [f"{p.flow}: {p.verdict}"]
    lines += [f"  - {r}" for r in p.reasons]
    packet = largest_packet(*p.mtu)
    if packet:
        lines.append(f"  largest packet: {packet}")
    lines.append("")
    lines += _trace_lines("forward", p.forward, p.reasons)
    lines.append("")
    lines += _trace_lines("reply", p.reverse)
    return "\n".join(one_line(line, limit=sys.maxsize) for line in lines)
