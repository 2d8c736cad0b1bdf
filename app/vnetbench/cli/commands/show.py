"""``vnetbench show FILE``: an inventory of a design, as text or JSON.

The summary is built once as plain data (``inventory``) and either printed as JSON or rendered as indented
text, so both outputs always say the same thing.
"""

from __future__ import annotations

import argparse
from typing import Any

from ...model import Index, Topology
from ...model.objects import PortMode, Route
from ...model.text import one_line
from ..common import load_design, print_json, say
from ..main import EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "show",
        description="Print an inventory of a design file.")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml)")
    p.add_argument("--json", action="store_true", help="print the inventory as JSON")
    p.set_defaults(func=run)


def speed(mbps: int) -> str:
    return f"{mbps // 1000} Gbit/s" if mbps >= 1000 and mbps % 1000 == 0 else f"{mbps} Mbit/s"


def inventory(t: Topology) -> dict[str, Any]:
    index = Index(t)
    peer: dict[str, str] = {}
    for link in t.links:
        peer[link.a], peer[link.b] = link.b, link.a

    def name(obj_id: str | None) -> str | None:
        entry = index.entries.get(obj_id) if obj_id else None
        if entry is None:
            return obj_id
        own = getattr(entry.obj, "name", entry.obj.id)
        return f"{entry.parent.name}/{own}" if entry.parent is not None else own


    users: dict[str, int] = {}
    for vm in t.vms:
        for nic in vm.vnics:
            if nic.network:
                users[nic.network] = users.get(nic.network, 0) + 1

    hosts = [{"id": h.id, "name": h.name, "kind": str(h.kind), "cpus": h.cpus,
              "pnics": [{"id": n.id, "name": n.name, "speed": speed(n.speed_mbps), "speed_mbps": n.speed_mbps,
                         "up": n.up, "plugged_into": name(peer.get(n.id))} for n in h.pnics]} for h in t.hosts]
    switches = []
    for sw in t.switches:
        where = [name(m) for m in sw.members] if sw.members else [name(sw.host)]
        switches.append({
            "id": sw.id, "name": sw.name, "kind": str(sw.kind), "hosts": where, "mtu": sw.mtu,
            "uplinks": [{"pnic": name(u.pnic), "standby": u.standby, "vlan": u.vlan} for u in sw.uplinks],
            "macvtap_mode": str(sw.macvtap_mode) if sw.macvtap_mode else None,
            "teaming": _teaming(sw.teaming), "vlan_filtering": sw.vlan_filtering,
            "lags": [{"name": lag.name, "mode": str(lag.mode), "hash": str(lag.hash), "pnics": [name(p) for p in lag.pnics]}
                     for lag in sw.lags],
            "pvlans": [{"primary": e.primary, "secondary": e.secondary, "type": str(e.type)} for e in sw.pvlans],
            "vnics": users.get(sw.id, 0),
            "portgroups": [{"id": pg.id, "name": pg.name, "vlan": pg.vlan.label(sw.kind), "vnics": users.get(pg.id, 0),
                            "promiscuous": pg.security.promiscuous, "forged_transmits": pg.security.forged_transmits,
                            "teaming": _teaming(pg.teaming), "pvlan": pg.pvlan}
                           for pg in sw.portgroups]})
    def switch_of(network: str | None) -> str | None:
        return name(index.parent(network).id) if index.kind(network) == "portgroup" else None

    vms = []
    for vm in t.vms:
        entry = {"id": vm.id, "name": vm.name, "host": name(vm.host), "role": str(vm.role),
                 "guest_os": vm.guest_os, "cpus": vm.cpus,
                 "vnics": [{"name": n.name, "type": str(n.type), "network": name(n.network),
                            "switch": switch_of(n.network),
                            "ip": n.ip, "gateway": n.gateway, "guest_vlan": n.guest_vlan, "mac": n.mac,
                            "physical_function": name(n.physical_function) if n.physical_function else None,
                            "pinned_uplink": name(n.uplink) if n.uplink else None,
                            "bridge_vlans": _bridge_vlans(n.bridge_vlans)}
                           for n in vm.vnics]}
        if str(vm.role) != "vm":
            fw = vm.forwarding
            entry["forwarding"] = {"mode": str(fw.mode), "rules": len(fw.rules), "default": str(fw.default_policy),
                                   "stateful": fw.stateful, "routes": [_route(rt) for rt in fw.routes]}
        vms.append(entry)
    physical = {
        "switches": [{"id": ps.id, "name": ps.name, "stack": ps.stack,
                      "port_channels": [{"name": ch.name, "mode": str(ch.mode), "ports": [name(p) for p in ch.ports]}
                                        for ch in ps.port_channels],
                      "ports": [
            {"name": p.name, "mode": str(p.mode),
             "vlans": f"VLAN {p.access_vlan}" if p.mode == PortMode.ACCESS
             else f"allowed {p.allowed}, native {p.native_vlan}",
             "hairpin": p.hairpin, "connected_to": name(peer.get(p.id))} for p in ps.ports]}
            for ps in t.physical_switches],
        "routers": [{"id": r.id, "name": r.name, "on_switch": name(r.switch),
                     "interfaces": [{"name": i.name, "ip": i.ip, "vlan": i.vlan, "connected_to": name(peer.get(i.id))}
                                    for i in r.interfaces],
                     "routes": [_route(rt) for rt in r.routes]} for r in t.physical_routers],
        "hosts": [{"id": h.id, "name": h.name, "nics": [{"name": n.name, "ip": n.ip, "gateway": n.gateway,
                                                          "connected_to": name(peer.get(n.id))} for n in h.nics]}
                  for h in t.physical_hosts],
    }
    nsx = {"dlrs": [{"name": d.name, "interfaces": [{"name": i.name, "ip": i.ip, "network": name(i.network)}
                                                     for i in d.interfaces],
                     "routes": [_route(rt) for rt in d.routes]} for d in t.nsx.dlrs],
           "dfw": {"rules": len(t.nsx.dfw.rules), "default": str(t.nsx.dfw.default_policy),
                   "stateful": t.nsx.dfw.stateful}}
    return {"id": t.id, "name": t.name, "format_version": t.format_version, "hosts": hosts, "switches": switches,
            "vms": vms, "physical": physical, "nsx": nsx}


def _teaming(policy: Any) -> str | None:
    """A teaming policy in words (None: the explicit failover order of the uplinks)."""
    if policy is None:
        return None
    return ", ".join([str(policy.load_balancing), str(policy.failure_detection)]
                     + (["notify switches"] if policy.notify_switches else [])
                     + (["failback"] if policy.failback else []) + ([f"LAG {policy.lag}"] if policy.lag else []))


def _bridge_vlans(vlans: Any) -> str | None:
    """A VLAN-filtering bridge port's VLANs as ``bridge vlan show`` lists them."""
    if vlans is None:
        return None
    return f"VLANs {vlans.vlans}, pvid {vlans.pvid if vlans.pvid is not None else 'none'}, untagged {str(vlans.untagged) or 'none'}"


def one_line_each(value: Any) -> Any:
    """The inventory with each text (a name, an id) as one printable line: a name holding a line break or
    an escape sequence cannot start a line of its own, or act on the terminal."""
    if isinstance(value, dict):
        return {key: one_line_each(v) for key, v in value.items()}
    if isinstance(value, list):
        return [one_line_each(v) for v in value]
    return one_line(value) if isinstance(value, str) else value


def render(inv: dict[str, Any]) -> list[str]:
    """The inventory as indented text lines; give it ``one_line_each(inv)`` for a terminal."""
    out = [f"{inv['name']}  ({inv['id']})", "", f"Hosts ({len(inv['hosts'])})"]
    for h in inv["hosts"]:
        out.append(f"  {h['name']}  {h['kind']}, {h['cpus']} CPUs")
        for n in h["pnics"]:
            cable = f" -> {n['plugged_into']}" if n["plugged_into"] else " (not cabled)"
            out.append(f"    pNIC {n['name']}  {n['speed']}{'' if n['up'] else ' DOWN'}{cable}")
    out += ["", f"Switches ({len(inv['switches'])})"]
    for s in inv["switches"]:
        ups = ", ".join(u["pnic"] + (" standby" if u["standby"] else "") + (f" VLAN {u['vlan']}" if u["vlan"] else "")
                        for u in s["uplinks"]) or "none (internal)"
        mode = f", mode {s['macvtap_mode']}" if s["macvtap_mode"] else ""
        out.append(f"  {s['name']}  {s['kind']}{mode} on {', '.join(map(str, s['hosts']))}, MTU {s['mtu']}, "
                   f"uplinks: {ups}" + (f", {s['vnics']} vNIC(s)" if s["vnics"] else ""))
        if s["teaming"] or s["vlan_filtering"]:
            out.append("    " + "; ".join(([f"teaming: {s['teaming']}"] if s["teaming"] else [])
                                          + (["VLAN filtering"] if s["vlan_filtering"] else [])))
        for lag in s["lags"]:
            out.append(f"    LAG {lag['name']}  LACP {lag['mode']}, hash {lag['hash']}: {', '.join(lag['pnics'])}")
        for e in s["pvlans"]:
            out.append(f"    private VLAN {e['secondary']} {e['type']} under primary {e['primary']}")
        for pg in s["portgroups"]:
            out.append(f"    portgroup {pg['name']}  {pg['vlan']}, {pg['vnics']} vNIC(s)"
                       + (", promiscuous" if pg["promiscuous"] else "")
                       + (f", private VLAN {pg['pvlan']}" if pg["pvlan"] is not None else "")
                       + (f", teaming: {pg['teaming']}" if pg["teaming"] else ""))
    out += ["", f"VMs ({len(inv['vms'])})"]
    for vm in inv["vms"]:
        role = ""
        if "forwarding" in vm:
            fw = vm["forwarding"]
            role = (f"  {vm['role']}: {fw['mode']}, {fw['rules']} rule(s), default {fw['default']}"
                    f"{', stateful' if fw['stateful'] else ''}")
        out.append(f"  {vm['name']}  on {vm['host']}, {vm['guest_os']}, {vm['cpus']} vCPU{role}")
        for n in vm["vnics"]:
            where = n["network"] or "not connected"
            if n["physical_function"]:  # SR-IOV: a VF of this pNIC; DirectPath: the whole pNIC
                where = f"{where} via {n['physical_function']}" if n["network"] else f"owns {n['physical_function']}"
            extra = "".join([f" gw {n['gateway']}" if n["gateway"] else "",
                             f" tags VLAN {n['guest_vlan']}" if n["guest_vlan"] else "",
                             f" pinned to {n['pinned_uplink']}" if n["pinned_uplink"] else "",
                             f" ({n['bridge_vlans']})" if n["bridge_vlans"] else ""])
            out.append(f"    {n['name']}  {n['type']}  {where}  {n['ip'] or 'no address'}{extra}")
        out += [f"    {_route_text(rt)}" for rt in vm.get("forwarding", {}).get("routes", [])]
    phys = inv["physical"]
    if any(phys.values()):
        out += ["", "Physical network"]
        for ps in phys["switches"]:
            out.append(f"  switch {ps['name']}" + (f"  (stack {ps['stack']})" if ps["stack"] else ""))
            for ch in ps["port_channels"]:
                out.append(f"    port channel {ch['name']}  {ch['mode']}: {', '.join(ch['ports'])}")
            for p in ps["ports"]:
                cable = f" <- {p['connected_to']}" if p["connected_to"] else ""
                out.append(f"    {p['name']}  {p['mode']} {p['vlans']}{', hairpin' if p['hairpin'] else ''}{cable}")
        for r in phys["routers"]:
            on = f" (L3 switch on {r['on_switch']})" if r["on_switch"] else ""
            out.append(f"  router {r['name']}{on}")
            for i in r["interfaces"]:
                vlan = f" VLAN {i['vlan']}" if i["vlan"] else ""
                cable = f" <- {i['connected_to']}" if i["connected_to"] else ""
                out.append(f"    {i['name']}  {i['ip'] or 'no address'}{vlan}{cable}")
            out += [f"    {_route_text(rt)}" for rt in r["routes"]]
        for h in phys["hosts"]:
            for n in h["nics"]:
                out.append(f"  server {h['name']}/{n['name']}  {n['ip'] or 'no address'}"
                           + (f" -> {n['connected_to']}" if n["connected_to"] else ""))
    nsx = inv["nsx"]
    if nsx["dlrs"] or nsx["dfw"]["rules"]:
        out += ["", "NSX"]
        for d in nsx["dlrs"]:
            lifs = ", ".join(f"{i['name']} {i['ip']} on {i['network']}" for i in d["interfaces"])
            out.append(f"  DLR {d['name']}: {lifs}")
            out += [f"    {_route_text(rt)}" for rt in d["routes"]]
        dfw = nsx["dfw"]
        out.append(f"  DFW: {dfw['rules']} rule(s), default {dfw['default']}{', stateful' if dfw['stateful'] else ''}")
    return out


def run(args: argparse.Namespace) -> int:
    inv = inventory(load_design(args.file))
    if args.json:
        print_json(inv)
    else:
        say("\n".join(render(one_line_each(inv))))
    return EXIT_OK


def _route(route: Route) -> dict[str, Any]:
    """A static route as ``show --json`` lists it (``interface`` only where the route names one)."""
    out: dict[str, Any] = {"prefix": route.prefix, "via": route.via}
    return out | ({"interface": route.interface} if route.interface else {})


def _route_text(route: dict[str, Any]) -> str:
    return f"route {route['prefix']} via {route['via']}" + (f" out of {route['interface']}" if "interface" in route else "")
