"""Why two segments do not meet at L2, in words: no hairpin, private macvtap, overlay tunnels, missing trunks,
an untagged guest on a trunk."""

from __future__ import annotations

from ..model.forwarding import (
    egress, pvlan_may_talk, pvlan_refusal, pvlan_role_words, pvlan_wire_vlans,
)
from ..model.objects import MacvtapMode, SwitchKind
from ..model.vlan import VlanMode
from . import decide, teps
from . import graph as nx  # networkx's API for the graphs Network keeps, without networkx
from .kinds import EdgeKind
from .network import Point
from .walkbase import WalkerBase


class L2Reasons(WalkerBase):
    """Reachability between segments (``decide``'s labels) and the words for where it fails."""

    def l2_code(self, a: int, b: int) -> int:
        """Reachability from the segment labels (``decide.l2_code``; bridge domains need ``leg``)."""
        return decide.segment_l2(self.net.segments[a], self.net.segments[b])

    def _l2_reason(self, a: int, b: int) -> str:
        net = self.net
        sa, sb = net.segments[a], net.segments[b]
        if sa.pvlan >= 0 and sb.pvlan >= 0:
            return self._pvlan_reason(a, b)
        if (sa.pvlan >= 0) != (sb.pvlan >= 0) and sa.domain == sb.domain:
            return self._pvlan_outsider_reason(a, b)
        if sa.domain == sb.domain and sa.attachment == sb.attachment != -1:
            port_id, vlan = net.attachments[sa.attachment]
            port = net.port[port_id]
            sw = net.typed(sa.object_id, "switch")
            if sw is not None and sw.kind is SwitchKind.MACVTAP and sw.macvtap_mode is MacvtapMode.PRIVATE:
                return (f"macvtap {sw.name} is in private mode: guests on the same pNIC never reach each other, "
                        f"whether port {port.name} of {net.port_switch[port_id].name} has hairpin or not")
            return (f"{sa.name} and {sb.name} both reach the physical network through port {port.name} of "
                    f"{net.port_switch[port_id].name}, which has no hairpin (reflective relay), so frames "
                    f"cannot come back out of the port they entered")
        problems = sa.problems + [p for p in sb.problems if p not in sa.problems]
        if problems:
            return "; ".join(problems)
        sw = net.typed(sa.object_id, "switch")
        if sw is not None and sw.kind is SwitchKind.NSX_SEGMENT and sa.object_id == sb.object_id \
                and sa.host is not None and sb.host is not None:
            return self._overlay_reason(sw, sa.host, sb.host)
        missing = self._missing_trunks(a, b)
        if missing:
            return "; ".join(missing)
        return f"no L2 path joins {sa.name} and {sb.name}"

    def l2_path(self, a: int, b: int) -> list[int]:
        """The segments a frame crosses from ``a`` to ``b`` (NetworkXNoPath when none). Between two hosts' ports of
        a private VLAN: out on the VLAN the sender's role sends on (``pvlan_wire_vlans``) to that VLAN's segment on
        the other host, whose vDS hands it to ``b``; never through another host's vDS."""
        net = self.net
        sa, sb = net.segments[a], net.segments[b]
        if sa.local != sb.local and net.teamed and (sa.pvlan < 0 or sb.pvlan < 0):
            # a vSwitch forwards nothing from one uplink to another, and the physical switch learns each vNIC's
            # MAC on the uplink it sends through: between hosts, frames never cross a TEAM edge
            try:
                return nx.bidirectional_shortest_path(self._without_edges(EdgeKind.TEAM), a, b)
            except nx.NetworkXNoPath:
                pass
        if sa.pvlan < 0 or sb.pvlan < 0 or sa.local == sb.local:
            return nx.bidirectional_shortest_path(net.graph, a, b)
        entry = net.pvlan_entry_of(sa)
        assert entry is not None, "segments with a private VLAN role have a map entry"
        there = net.pvlan_peer(sb, pvlan_wire_vlans(entry)[0])
        if there is None:
            raise nx.NetworkXNoPath(f"{sb.name}'s switch takes no VLAN {entry.secondary}")
        return nx.bidirectional_shortest_path(self._without_edges(EdgeKind.PVLAN), a, there) + ([b] if there != b else [])

    def _without_edges(self, kind: EdgeKind) -> nx.Graph:
        """The segment graph without the edges of ``kind`` that join one host's segments (PVLAN, TEAM: a vDS
        never forwards a frame from its uplink back out of it): a view, so a walk copies nothing."""
        return nx.without_edges(self.net.graph, lambda data: data["kind"] is not kind)

    def _pvlan_reason(self, a: int, b: int) -> str:
        """Why two private VLAN ports do not meet: their roles (named), or a VLAN one side sends on that the
        physical network does not carry to the other side's host (naming where it stops)."""
        net = self.net
        sa, sb = net.segments[a], net.segments[b]
        ea, eb = net.pvlan_entry_of(sa), net.pvlan_entry_of(sb)
        assert ea is not None and eb is not None, "segments with a private VLAN role have a map entry"
        if a == b and not pvlan_may_talk(ea, eb):
            return f"the ports of {sa.name} are on the {pvlan_role_words(ea)}: {pvlan_refusal(ea, eb)}"
        if not pvlan_may_talk(ea, eb):
            return (f"{sa.name} is on the {pvlan_role_words(ea)} and {sb.name} on the {pvlan_role_words(eb)}: "
                    f"{pvlan_refusal(ea, eb)}")
        for x, y, entry in ((sa, sb, ea), (sb, sa, eb)):
            if y.hears[x.pvlan_col] == x.domain:
                continue
            vlan = pvlan_wire_vlans(entry)[0]
            there = net.pvlan_peer(y, vlan)
            where = f"{net.host_name(y.host)}'s uplink" if y.host is not None else net.pvlan_owner_name(y)
            stops = x.problems or (net.segments[there].problems or self._missing_trunks(x.id, there)
                                   if there is not None else [])
            return (f"{x.name} (the {pvlan_role_words(entry)}) sends on VLAN {vlan}, but the physical network does "
                    f"not carry VLAN {vlan} to {where}, so {y.name} never hears it"
                    + (f" ({'; '.join(stops)})" if stops else "")
                    + f"; carry every VLAN of private VLAN {entry.primary} on the trunks between the hosts")
        return f"no L2 path joins {sa.name} and {sb.name}"

    def _pvlan_outsider_reason(self, a: int, b: int) -> str:
        """Why an endpoint outside a private VLAN does not meet a port of one on the VLAN the port sends on
        (``decide.pvlan_outsider_allowed``): the switch gives its frames that VLAN's role, an isolated one."""
        net = self.net
        port, outsider = (net.segments[a], net.segments[b])[:: 1 if net.segments[a].pvlan >= 0 else -1]
        entry = net.pvlan_entry_of(port)
        assert entry is not None, "a segment with a private VLAN role has a map entry"
        owner = net.pvlan_owner_name(port)
        return (f"{outsider.name} is on the {pvlan_role_words(entry)} without being a port of it: {owner} takes "
                f"frames arriving on VLAN {entry.secondary} as from an isolated port and hands them only to "
                f"promiscuous ports, so {port.name} never hears {outsider.name}; reach the isolated ports from a "
                f"promiscuous port (the primary VLAN {entry.primary} on {owner}), or route")

    def _wire(self, seg_id: int) -> int | None:
        """The physical segment a segment's frames reach (itself when physical), if any."""
        net = self.net
        if net.segments[seg_id].physical:
            return seg_id
        for _, peer, data in net.graph.edges(seg_id, data=True):
            if data["kind"] is EdgeKind.UPLINK:
                return peer
        return None

    def _overlay_reason(self, sw, host_a: str, host_b: str) -> str:
        """Why two hosts' instances of an NSX segment are not joined: their tunnel endpoints do not reach each
        other, because the physical network does not carry the transport VLAN between their transport pNICs."""
        net = self.net
        routed = teps.routed_problem(net.tep_net, host_a, host_b)
        if routed:
            return (f"{sw.name} joins {net.host_name(host_a)} and {net.host_name(host_b)} through the NSX overlay, "
                    f"but the tunnel endpoints cannot reach each other: {routed}")
        wa, wb = net.transports[host_a], net.transports[host_b]
        ta, tb = net.tep_segment(host_a), net.tep_segment(host_b)
        # instances without a problem sit on hosts with a working tunnel endpoint (else their problems are the reason)
        assert ta is not None and tb is not None and wa.pnic is not None and wb.pnic is not None
        why = self._missing_trunks(ta, tb) or [f"no L2 path joins {net.segments[ta].name} and {net.segments[tb].name}"]
        vlan = f"VLAN {wa.vlan}" if wa.tag is not None else f"untagged frames (VLAN {wa.vlan} on the wire)"
        return (f"{sw.name} joins {net.host_name(host_a)} and {net.host_name(host_b)} through the NSX overlay, but "
                f"the tunnel endpoints cannot reach each other: the physical network does not carry the transport "
                f"{vlan} from {net.fabric.pnic_label(wa.pnic)} to {net.fabric.pnic_label(wb.pnic)} "
                f"({'; '.join(why)})")

    def _missing_trunks(self, a: int, b: int) -> list[str]:
        """Why two wired segments do not meet: different VLANs, or inter-switch ports on the way between their
        switches that do not carry the VLAN (a chain of trunks needs it on every one)."""
        net = self.net
        wa, wb = self._wire(a), self._wire(b)
        if wa is None or wb is None:
            return []
        pa, pb = net.segments[wa], net.segments[wb]
        if pa.vlan != pb.vlan or pa.vlan is None:   # (physical segments have their VLAN)
            return [f"{net.segments[a].name} reaches {pa.name} but {net.segments[b].name} reaches {pb.name}"]
        try:
            path = nx.shortest_path(net.switch_graph, pa.object_id, pb.object_id)
        except (nx.NetworkXNoPath, nx.NodeNotFound):
            return [f"no cable joins {net.name_of(pa.object_id)} and {net.name_of(pb.object_id)}"]
        out = []
        for x, y in zip(path, path[1:]):
            for port_id in net.switch_graph.edges[x, y]["ports"]:
                port = net.port[port_id]
                if not port.up:
                    out.append(f"{net.fabric.port_label(port)} is down")
                elif not egress(port, pa.vlan)[0]:
                    out.append(f"{net.fabric.port_label(port)} does not allow VLAN {pa.vlan}")
        return out

    def _untagged_on_trunk(self, point: Point, target: int | None) -> list[str]:
        """An untagged guest on a trunk portgroup that did not get through: say first which VLAN it is on (SEMANTICS
        §2: VLAN none on a vSS, the native VLAN elsewhere), since that, not the wire, is usually why."""
        net = self.net
        pg = net.typed(point.portgroup, "portgroup")
        nic = net.index.get(point.nic)
        if pg is None or pg.vlan.mode is not VlanMode.TRUNK or getattr(nic, "guest_vlan", 1) is not None:
            return []
        seg = net.segment_of(point)
        here = f"VLAN {seg.vlan}" if seg.vlan is not None else "VLAN none (untagged)"
        there = net.segments[target].vlan if target is not None else None
        other = f", not in VLAN {there} where the other end is" if there is not None and there != seg.vlan else ""
        return [f"{point.name} sends untagged frames on trunk portgroup {pg.name}, so it is in {here} of "
                f"{net.name_of(seg.object_id)}{other} (to be in a VLAN, the guest tags it)"]
