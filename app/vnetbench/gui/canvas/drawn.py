"""What the canvas draws for a design: one item per object, and one per member host for what spans hosts.

A vDS or an NSX segment with member hosts is drawn as VMware draws it: a proxy switch inside each member host
(key ``<switch id>@<host id>``, holding ``<portgroup id>@<host id>``), tied to the proxies of hosts beside it by a
band; an NSX DLR has an instance in each host its segments reach. A VM's line goes to the portgroup instance in
its own host. Keys are those of the layout room (``vnetbench.layout``), so places written by Auto Layout land on
the same boxes, and the words on each box are the layout's (``vnetbench.layout.content``). Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterator
from typing import Any

from ...layout import content
from ...model.forwarding import NO_UPLINK
from ...model.objects import MULTI_HOST_SWITCHES, Topology

#: Switch kinds that never have uplinks (the canvas does not ask for one).
#: The canvas's own line on a switch that could have an uplink and has none: the gesture that gives it one.
NO_UPLINK_HINT = "no uplink: drag a pNIC here"


@dataclass(frozen=True)
class Drawn:
    key: str
    kind: str
    obj: Any
    parent: str | None  # the key of the frame it sits in
    ref: str            # the model object's id


def instance(oid: str, host: str | None) -> str:
    return f"{oid}@{host}" if host else oid


def members(topology: Topology) -> dict[str, list[str]]:
    """Multi-host switch id -> its member hosts that exist (in the design's order, once each)."""
    hosts = {h.id for h in topology.hosts}
    return {sw.id: [m for m in dict.fromkeys(sw.members) if m in hosts] for sw in topology.switches
            if sw.kind in MULTI_HOST_SWITCHES}


def dlr_hosts(topology: Topology, spans: dict[str, list[str]]) -> dict[str, list[str]]:
    """DLR id -> the hosts it has an instance in (where the segments it joins have proxies)."""
    where: dict[str, list[str]] = {}
    for sw in topology.switches:
        hosts = spans.get(sw.id, [sw.host] if sw.host else [])
        for oid in [sw.id, *(pg.id for pg in sw.portgroups)]:
            where[oid] = hosts
    out = {}
    for dlr in topology.nsx.dlrs:
        found: list[str] = []
        for itf in dlr.interfaces:
            found += [h for h in where.get(itf.network, []) if h not in found]
        out[dlr.id] = found
    return out


def iter_drawn(topology: Topology) -> Iterator[Drawn]:
    """Every item the canvas shows, parents before children, one at a time (the canvas draws a large design
    a slice at a time)."""
    t = topology
    hosts = {h.id for h in t.hosts}
    spans = members(t)
    for host in t.hosts:
        yield Drawn(host.id, "host", host, None, host.id)
    for sw in t.switches:
        where = spans.get(sw.id)
        if where:
            for h in where:
                key = instance(sw.id, h)
                yield Drawn(key, "switch", sw, h, sw.id)
                for pg in sw.portgroups:
                    yield Drawn(instance(pg.id, h), "portgroup", pg, key, pg.id)
        else:
            parent = sw.host if sw.host in hosts and sw.kind not in MULTI_HOST_SWITCHES else None
            yield Drawn(sw.id, "switch", sw, parent, sw.id)
            for pg in sw.portgroups:
                yield Drawn(pg.id, "portgroup", pg, sw.id, pg.id)
    for vm in t.vms:
        yield Drawn(vm.id, "vm", vm, vm.host if vm.host in hosts else None, vm.id)
    for ps in t.physical_switches:
        yield Drawn(ps.id, "physical_switch", ps, None, ps.id)
    for router in t.physical_routers:
        yield Drawn(router.id, "physical_router", router, None, router.id)
    for ph in t.physical_hosts:
        yield Drawn(ph.id, "physical_host", ph, None, ph.id)
    for dlr, where in zip(t.nsx.dlrs, dlr_hosts(t, spans).values()):
        if where:
            for h in where:
                yield Drawn(instance(dlr.id, h), "dlr", dlr, h, dlr.id)
        else:
            yield Drawn(dlr.id, "dlr", dlr, None, dlr.id)
    for note in t.layout.notes:
        yield Drawn(note.id, "note", note, None, note.id)


def words(item: Drawn, topology: Topology, switch_of: dict[str, Any], spans: dict[str, list[str]]) -> list[str]:
    """The detail lines a box shows: the layout's words, and on a switch without an uplink the gesture that
    gives it one (the canvas is where one builds; exports leave it out)."""
    kind, obj = item.kind, item.obj
    if kind == "host":
        return content.host_details(obj)
    if kind == "switch":
        lines = content.switch_details(obj)
        if item.key != item.ref:
            lines.append(f"proxy \u00b7 {len(spans.get(obj.id, []))} member hosts")
        if not obj.uplinks and obj.kind not in NO_UPLINK:
            lines.append(NO_UPLINK_HINT)
        return lines
    if kind == "portgroup":
        sw = switch_of.get(obj.id)
        return content.portgroup_details(obj, sw) if sw is not None else []
    if kind == "vm":
        return content.vm_details(obj)
    if kind == "physical_switch":
        return content.physical_switch_details(obj)
    if kind == "physical_router":
        names = {s.id: s.name for s in topology.physical_switches}
        return content.router_details(obj, names.get(obj.switch or ""))
    if kind == "physical_host":
        return content.physical_host_details(obj)
    if kind == "dlr":
        return content.dlr_details(obj)
    return []


def part_words(kind: str, obj: Any) -> list[str]:
    """The details of a handle drawn as a chip: a pNIC's speed, a port's VLANs, an interface's address."""
    if kind == "pnic":
        return content.pnic_details(obj)
    if kind == "port":
        return content.port_details(obj)
    if kind in ("router_interface", "host_nic"):
        return content.interface_details(obj)
    return []


def iter_links(topology: Topology, spans: dict[str, list[str]], rows: list[list[str]]) -> Iterator[tuple[str, tuple]]:
    """(canvas link key, (style, end a, end b)) for every link, one at a time (the canvas works them out a slice
    at a time); a later one with the same key replaces an earlier one, and the canvas keeps those whose ends it
    draws.

    ``rows`` are the hosts standing side by side, left to right: the proxies of a multi-host switch in two
    neighbouring member hosts are tied by a band (key ``bus:<switch>:<host a>:<host b>``)."""
    t = topology
    pg_switch = {pg.id: sw.id for sw in t.switches for pg in sw.portgroups}
    pnic_host = {n.id: h.id for h in t.hosts for n in h.pnics}

    def target(network: str | None, host: str | None) -> str | None:
        sw = pg_switch.get(network or "", network)
        if sw in spans and spans[sw] and host in spans[sw]:
            return instance(network, host)
        return network

    for vm in t.vms:
        for nic in vm.vnics:
            if nic.network:
                yield f"net:{nic.id}", ("net", nic.id, target(nic.network, vm.host))
    for sw in t.switches:
        for up in sw.uplinks:
            a = instance(sw.id, pnic_host.get(up.pnic)) if spans.get(sw.id) else sw.id
            yield f"up:{sw.id}:{up.pnic}", ("uplink", a, up.pnic)
    for link in t.links:
        yield link.id, ("cable", link.a, link.b)
    where = dlr_hosts(t, spans)
    for dlr in t.nsx.dlrs:
        for itf in dlr.interfaces:
            if where[dlr.id]:
                for h in where[dlr.id]:
                    yield f"dlr:{itf.id}@{h}", ("dlr", instance(dlr.id, h), target(itf.network, h))
            else:
                yield f"dlr:{itf.id}", ("dlr", dlr.id, itf.network)
    for router in t.physical_routers:
        if router.switch:
            yield f"l3:{router.id}", ("l3", router.id, router.switch)
    for sw_id, members_of in spans.items():
        if len(members_of) < 2:
            continue
        hosts = set(members_of)
        for row in rows:
            for a, b in zip(row, row[1:]):
                if a in hosts and b in hosts:
                    yield f"bus:{sw_id}:{a}:{b}", ("bus", instance(sw_id, a), instance(sw_id, b))


def layout_edge_id(key: str, a: str, b: str) -> str:
    """The id the layout room gives the line the canvas draws under ``key`` (from ``a`` to ``b``)."""
    kind, _, rest = key.partition(":")
    if kind == "net":
        return rest
    if kind == "up":
        pnic = rest.rsplit(":", 1)[-1]
        return f"{a}>{pnic}"
    if kind == "dlr":
        return rest
    if kind == "l3":
        return f"{a}>{b}"
    if kind == "bus":
        sw, host_a, host_b = rest.split(":")
        return f"{sw}@{host_a}~{host_b}"
    return key
