"""What each box says and how big that makes it: the words come from the model, the sizes from ``text``.

Every fact a documentation reader needs is written in full: a VM lists each vNIC with its adapter type and
address, a portgroup its VLAN, a switch port its mode and every VLAN it carries, a router each interface and
route. Long text wraps onto more lines; the box grows to hold it. The canvas and the exports draw the same lines
in the same fonts at the same offsets (``TEXT_X``, ``TEXT_TOP``), so what fits here fits there.
"""

from __future__ import annotations

from ..model.families import shown
from ..model.forwarding import pvlan_entry
from ..model.nsxt import gateway_kind
from ..model.objects import (VM, BridgeVlans, Dlr, FailureDetection, Host, HostNic, LacpMode, LoadBalancing, PhysicalHost,
                             PhysicalRouter, PhysicalSwitch, PNic, Port, Portgroup, Pvlan, PvlanType, RouterInterface,
                             Switch, SwitchKind, Teaming, VmRole)
from ..model.text import exportable
from ..model.vlan import Vlan
from .diagram import ICON_KINDS, Box
from .text import DETAIL_LINE, DETAIL_PX, LABEL_LINE, LABEL_PX, text_width, wrap

#: Where text starts inside a box: after the icon (if the kind has one) and a margin.
ICON = 16.0
FRAME_ICON = 20.0
TEXT_LEFT = 7.0
TEXT_TOP = 5.0
TEXT_RIGHT = 8.0
BOTTOM = 6.0
#: A detail line is wrapped beyond this width (a trunk's VLAN list, a long route).
WRAP = 230.0

MIN_SIZE = {"vm": (120.0, 40.0), "portgroup": (96.0, 36.0), "pnic": (64.0, 34.0), "port": (64.0, 34.0),
            "router_interface": (72.0, 34.0), "host_nic": (72.0, 34.0), "dlr": (120.0, 40.0)}

SWITCH_KINDS = {SwitchKind.VSS: "standard vSwitch", SwitchKind.VDS: "distributed vSwitch",
                SwitchKind.LINUX_BRIDGE: "Linux bridge", SwitchKind.OVS: "Open vSwitch", SwitchKind.MACVTAP: "macvtap",
                SwitchKind.HOSTED_BRIDGED: "bridged network", SwitchKind.HOSTED_HOSTONLY: "host-only network",
                SwitchKind.HOSTED_NAT: "NAT network", SwitchKind.NSX_SEGMENT: "NSX segment",
                SwitchKind.RAW: "raw socket"}


#: A load-balancing policy as a diagram names it.
LOAD_BALANCING = {LoadBalancing.PORT_ID: "originating port ID", LoadBalancing.MAC_HASH: "source MAC hash",
                  LoadBalancing.IP_HASH: "IP hash", LoadBalancing.FAILOVER_ORDER: "explicit failover order",
                  LoadBalancing.LOAD_BASED: "load-based"}


def text_x(kind: str) -> float:
    """Where a box's text starts (after its icon)."""
    if kind not in ICON_KINDS:
        return TEXT_LEFT
    icon = FRAME_ICON if kind in ("host", "switch", "physical_switch", "physical_router", "physical_host") else ICON
    return TEXT_LEFT + icon + 6.0


def text_size(kind: str, label: str, lines: list[str]) -> tuple[float, float]:
    """The room ``label`` (bold) over ``lines`` (details) take, from the box's corner, with margins."""
    width = max([text_width(label, LABEL_PX, True)] + [text_width(line, DETAIL_PX) for line in lines])
    return text_x(kind) + width + TEXT_RIGHT, TEXT_TOP + LABEL_LINE + len(lines) * DETAIL_LINE + BOTTOM


def _wrapped(parts: list[str]) -> list[str]:
    """Detail lines wrapped to the box; names in them as every diagram shows them (``exportable``)."""
    return [line for part in parts if part for line in wrap(exportable(part, breaks=False), DETAIL_PX, False, WRAP)]


def leaf(box_id: str, ref: str, kind: str, label: str, details: list[str], style: str = "",
         aliases: tuple[str, ...] = (), host: str | None = None) -> Box:
    """A box with no children, sized to its text (never below the kind's minimum)."""
    label_lines = wrap(exportable(label, breaks=False), LABEL_PX, True, WRAP)
    label, lines = label_lines[0], _wrapped(label_lines[1:] + details)
    w, h = text_size(kind, label, lines)
    min_w, min_h = MIN_SIZE.get(kind, (60.0, 34.0))
    return Box(box_id, ref, kind, label, lines, 0, 0, max(w, min_w), max(h, min_h), style=style, aliases=aliases,
               host=host)


def frame(box_id: str, ref: str, kind: str, label: str, details: list[str], style: str = "",
          host: str | None = None) -> Box:
    """A frame: its title block's size is ``label_w`` x ``header``; the caller sizes the rest around children."""
    label_lines = wrap(exportable(label, breaks=False), LABEL_PX, True, WRAP * 1.5)
    label, lines = label_lines[0], _wrapped(label_lines[1:] + details)
    w, h = text_size(kind, label, lines)
    return Box(box_id, ref, kind, label, lines, 0, 0, w, h, style=style, header=max(h, 32.0), label_w=w, host=host)


# --- the words ------------------------------------------------------------------------------------------


def vlan_text(vlan: Vlan, switch: Switch) -> str:
    return vlan.label(switch.kind)


def speed(mbps: int) -> str:
    return f"{mbps // 1000} GbE" if mbps >= 1000 and mbps % 1000 == 0 else f"{mbps} Mb/s"


def host_details(host: Host) -> list[str]:
    return [f"{host.kind} \u00b7 {host.cpus} CPUs"]


def switch_details(sw: Switch) -> list[str]:
    parts = [SWITCH_KINDS.get(sw.kind, str(sw.kind))]
    if sw.kind == SwitchKind.MACVTAP and sw.macvtap_mode:
        parts.append(f"mode {sw.macvtap_mode}")
    if sw.vni is not None:
        parts.append(f"VNI {sw.vni}")
    if sw.mtu != 1500:
        parts.append(f"MTU {sw.mtu}")
    if sw.kind == SwitchKind.LINUX_BRIDGE and sw.vlan_filtering:
        parts.append("VLAN filtering")
    lines = [" \u00b7 ".join(parts)]
    if sw.teaming is not None:
        lines.append(teaming_text(sw.teaming, sw))
    lines += [f"LAG {lag.name} \u00b7 {lacp_text(lag.mode)} \u00b7 {len(lag.pnics)} pNICs" for lag in sw.lags]
    lines += pvlan_map_text(sw.pvlans)
    if sw.host_address:
        lines.append(f"host {sw.host_address}")
    if sw.nat_gateway:
        lines.append(f"NAT gateway {sw.nat_gateway}")
    lines += [f"forward {pf.proto} {pf.host_port} \u2192 {pf.guest}:{pf.guest_port or pf.host_port}"
              for pf in sw.port_forwards]
    return lines


def portgroup_details(pg: Portgroup, sw: Switch) -> list[str]:
    """Its VLAN (or its private VLAN role), its native VLAN, and a teaming override."""
    entry = pvlan_entry(sw.pvlans, pg.pvlan) if pg.pvlan is not None else None
    lines = [pvlan_text(entry) if entry is not None else vlan_text(pg.vlan, sw)]
    if pg.native_vlan is not None and entry is None:
        lines.append(f"native VLAN {pg.native_vlan}")
    if pg.teaming is not None:
        lines.append(teaming_text(pg.teaming, sw))
    return lines


def teaming_text(policy: Teaming, sw: Switch) -> str:
    """A teaming policy in a line: how it balances, beacon probing, the LAG it sends through."""
    parts = [f"teaming: {LOAD_BALANCING[policy.load_balancing]}"]
    if policy.failure_detection is FailureDetection.BEACON:
        parts.append("beacon probing")
    if policy.lag:
        parts.append("via LAG " + next((lag.name for lag in sw.lags if lag.id == policy.lag), policy.lag))
    return " \u00b7 ".join(parts)


def lacp_text(mode: LacpMode) -> str:
    return "static" if mode is LacpMode.STATIC else f"LACP {mode}"


def pvlan_text(entry: Pvlan) -> str:
    """A private VLAN port's role: ``PVLAN 201 isolated (200)``; the promiscuous primary: ``PVLAN 200 promiscuous``."""
    if entry.type is PvlanType.PROMISCUOUS:
        return f"PVLAN {entry.primary} promiscuous"
    return f"PVLAN {entry.secondary} {entry.type} ({entry.primary})"


def pvlan_map_text(pvlans: list[Pvlan]) -> list[str]:
    """A private VLAN map, a line per primary: ``PVLAN 200: 201 isolated, 202 community``."""
    primaries = sorted({e.primary for e in pvlans})
    return [f"PVLAN {p}: " + ", ".join(f"{e.secondary} {e.type}" for e in sorted(pvlans, key=lambda e: e.secondary)
                                       if e.primary == p and e.type is not PvlanType.PROMISCUOUS)
            for p in primaries]


def vm_details(vm: VM) -> list[str]:
    """Each vNIC on a line: its name, adapter type and address; a forwarding VM says what it is first."""
    lines = [] if vm.role == VmRole.VM else [f"{vm.role} \u00b7 {vm.forwarding.mode}"]
    for nic in vm.vnics:
        parts = [nic.name, str(nic.type), *shown(nic)]
        if nic.guest_vlan is not None:
            parts.append(f"VLAN {nic.guest_vlan}")
        if nic.bridge_vlans is not None:
            parts.append(bridge_vlans_text(nic.bridge_vlans))
        if not nic.connected:
            parts.append("disconnected")
        lines.append(" \u00b7 ".join(parts))
    return lines or [vm.guest_os]


def bridge_vlans_text(vlans: BridgeVlans) -> str:
    """A VLAN-filtering bridge port's VLANs as ``bridge vlan`` shows them: ``VLANs 10,20 PVID 10 untagged 10``,
    or ``PVID 10 untagged`` for a port of that one VLAN."""
    if vlans.pvid is not None and str(vlans.vlans) == str(vlans.untagged) == str(vlans.pvid):
        return f"PVID {vlans.pvid} untagged"
    text = f"VLANs {vlans.vlans}" + (f" PVID {vlans.pvid}" if vlans.pvid is not None else " no PVID")
    return text + (f" untagged {vlans.untagged}" if str(vlans.untagged) else "")


def pnic_details(nic: PNic) -> list[str]:
    return [speed(nic.speed_mbps) + ("" if nic.up else " \u00b7 down")]


def port_details(port: Port) -> list[str]:
    lines = [f"trunk {port.allowed}" if port.mode == "trunk" else f"access VLAN {port.access_vlan}"]
    if port.mode == "trunk" and port.native_vlan != 1:
        lines.append(f"native VLAN {port.native_vlan}")
    if port.hairpin:
        lines.append("hairpin")
    if not port.up:
        lines.append("down")
    return lines


def interface_details(itf: RouterInterface | HostNic) -> list[str]:
    lines = shown(itf)
    if itf.vlan is not None:
        lines.append(f"VLAN {itf.vlan}")
    return lines


def router_details(router: PhysicalRouter, switch_name: str | None) -> list[str]:
    lines = [f"L3 switch on {switch_name}" if switch_name else "router"]
    lines += [f"route {r.prefix} via {r.via}" for r in router.routes]
    return lines


def physical_switch_details(ps: PhysicalSwitch) -> list[str]:
    """Its port count and stack, each port channel with its members, its private VLAN map."""
    head = f"{len(ps.ports)} port{'s' if len(ps.ports) != 1 else ''}" + (f" \u00b7 stack {ps.stack}" if ps.stack else "")
    names = {p.id: p.name for p in ps.ports}
    lines = [head] + [f"{ch.name} \u00b7 {lacp_text(ch.mode)} \u00b7 " + ", ".join(names.get(p, p) for p in ch.ports)
                      for ch in ps.port_channels]
    return lines + pvlan_map_text(ps.pvlans)


def physical_host_details(ph: PhysicalHost) -> list[str]:
    return ["physical host"]


def dlr_details(dlr: Dlr) -> list[str]:
    return ["NSX DLR" if dlr.tier is None else f"NSX-T {gateway_kind(dlr)}"] + \
        [f"{itf.name} {' '.join(shown(itf))}" for itf in dlr.interfaces]
