"""Teaming in the lab: vNICs pinned to an uplink leave through it (forwarding-rules.md "Teaming").

A pinned vNIC's segment differs from its VLAN's other segments only by its uplink (``SegmentKey.uplink``), so
it shares their bridge (the vSwitch joins its ports whatever their uplinks) and each uplink gets its own veth
into the physical switch. An nftables bridge rule per uplink then keeps each vNIC's frames to its own uplink,
hands what comes in through an uplink only to the vNICs that leave through it, and never forwards from one
uplink to another (a vSwitch does not). The uplink ports do not learn MACs: a remote MAC heard through one
uplink may be one a vNIC of another must reach through its own, so frames to remote MACs flood and the rules
choose the uplink. vNICs that are not pinned leave through the failover order's first working uplink.
"""

from __future__ import annotations

from dataclasses import replace

from vnetbench.model.forwarding import SegmentKey, Switching, pvlan_segment_entry, shares_embedded_switch

from .desired_base import BuilderBase
from .names import ifname


class TeamParts(BuilderBase):
    """Pins: one bridge per VLAN with a veth per uplink its vNICs leave through, and the rules that keep them apart."""

    def wire_port(self, key: SegmentKey, bridge: str) -> str | None:
        """The port of ``bridge`` that ``key``'s frames leave the host through (as ``uplinks`` names it)."""
        wire = self.fabric.segment_wire(key)
        if wire is None or wire.pnic is None or wire.vlan is None:
            return None
        members = self.groups.get((wire.pnic, wire.vlan), [])
        shared = len(members) > 1 or any(guests for _, _, guests in members)
        return ifname("g", wire.pnic, wire.vlan, bridge) if shared else ifname("u", wire.pnic, wire.vlan)

    def keep_apart(self, ns: str, wire: str) -> None:
        """An uplink port its bridge forwards to no other uplink: it learns no MAC, and the loop check sees it
        as a layer-2 node of its own."""
        self.apart_wires.add((ns, wire))
        for res in self.res.values():
            if res.kind != "veth":
                continue
            for side in ("a", "b"):
                end = res.spec[side]
                if end["ns"] == ns and end["name"] == wire and end["learning"]:
                    self.res[res.key] = replace(res, spec={**res.spec, side: {**end, "learning": False}})
                    return

    def team_filters(self) -> None:
        """The rules of every VLAN whose vNICs leave through more than one uplink (first in the forward chain)."""
        by_vlan: dict[SegmentKey, dict[str | None, list[str]]] = {}     # segment without its uplink -> wire -> its vNICs
        for _, port, vm, nic in self.vm_ports:
            key = self.vnic_key(vm, nic)
            seg = self.segments.get(key) if key is not None else None
            if seg is None or key is None or key.guest is not None or pvlan_segment_entry(seg.switch, key.vlan):
                continue      # (a private VLAN's VLANs leave through uplinks of their own: ``desired_pvlan``)
            wire = self.wire_port(key, seg.bridge)    # None: its uplink does not reach the network
            by_vlan.setdefault(replace(key, uplink=None), {}).setdefault(wire, []).append(port)
        for _, partner, port in self._embedded_ports():   # an SR-IOV embedded switch: with its pNIC's vNICs
            if replace(partner, uplink=None) in by_vlan:
                by_vlan[replace(partner, uplink=None)].setdefault(
                    self.wire_port(partner, self.segments[partner].bridge), []).append(port)
        for base, wires in by_vlan.items():
            if len(wires) < 2:
                continue
            seg = self.segments[next(k for k in self.segments if replace(k, uplink=None) == base)]
            rules = []
            for wire, vnics in sorted(wires.items(), key=lambda kv: kv[0] or ""):
                others = sorted(w for w in wires if w is not None and w != wire)
                if others:
                    why = f"its vNICs leave through {wire} only" if wire else "its vNICs' uplink reaches no network"
                    rules.append(_drop(vnics, others, f"{seg.bridge}: {why}"))
                if wire is not None:
                    strangers = [p for w, ps in wires.items() if w != wire for p in ps]
                    rules.append(_drop([wire], others + strangers, f"{seg.bridge}: {wire} reaches its own vNICs only"))
                    self.keep_apart(seg.ns, wire)
            self.bridge_rules[seg.ns] = rules + self.bridge_rules.get(seg.ns, [])

    def _embedded_ports(self) -> list[tuple[SegmentKey, SegmentKey, str]]:
        """(embedded switch segment, the virtual segment it joins, the port on that segment's bridge), as
        ``uplinks`` joins them: the first virtual segment leaving through the same pNIC in the same VLAN."""
        wires = {k: w for k in self.segments if (w := self.fabric.segment_wire(k)) is not None and w.pnic is not None}
        out = []
        for key, wire in wires.items():
            if key.switching is not Switching.EMBEDDED:
                continue
            partner = next((k for k, w in wires.items() if k.switching is Switching.VIRTUAL
                            and shares_embedded_switch(wire, w)), None)
            if partner is not None:
                out.append((key, partner, ifname("e", self.segments[partner].bridge, self.segments[key].bridge)))
        return out


def _drop(sources: list[str], to: list[str], why: str) -> str:
    """A rule dropping what ``sources`` send out of any of the ports ``to``."""
    src = ", ".join(f'"{p}"' for p in sorted(sources))
    dst = ", ".join(f'"{p}"' for p in sorted(set(to)))
    return f'iifname {{ {src} }} oifname {{ {dst} }} drop comment "{why}"'
