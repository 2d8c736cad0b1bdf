"""Validation: what is wrong with a design, said so a person can fix it.

``validate(topology)`` returns ``Problem`` records (errors first). Each names the place in the file
(``vms[2].vnics[0].ip``), the object's id (the canvas selects it), a plain sentence and the fix. Errors are
designs the real platforms refuse or that make prediction meaningless; warnings are designs that work but
probably not as intended (a bridged firewall without promiscuous mode drops traffic).
"""

from __future__ import annotations

import ipaddress
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .forwarding import (
    BYPASS_TYPES, STANDARD_MTU, TAGGING_SWITCHES, Fabric, inner_mtu, overlay_overhead,
    patchable,
)
from .index import Entry, Index
from .nictypes import GUESTS, MIN_HARDWARE, PLATFORM_NIC_TYPES, allowed_nic_types
from .objects import (
    MULTI_HOST_SWITCHES,
    Place,
    PORTGROUP_SWITCHES,
    VM,
    ForwardMode,
    Host,
    HostKind,
    NicType,
    Note,
    Portgroup,
    PortMode,
    Switch,
    SwitchKind,
    Topology,
    VmRole,
)
from .text import one_line
from .vlan import ALL_VLANS, MAX_VLAN, VlanMode

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Problem:
    severity: str  # "error" | "warning"
    path: str  # place in the file, e.g. "vms[2].vnics[0].ip"
    object_id: str | None
    message: str
    hint: str

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "path": self.path, "object_id": self.object_id,
                "message": self.message, "hint": self.hint}


#: The host kind each switch kind lives on.
SWITCH_HOST_KIND: dict[SwitchKind, HostKind] = {
    SwitchKind.VSS: HostKind.ESXI, SwitchKind.VDS: HostKind.ESXI, SwitchKind.NSX_SEGMENT: HostKind.ESXI,
    SwitchKind.LINUX_BRIDGE: HostKind.KVM, SwitchKind.OVS: HostKind.KVM, SwitchKind.MACVTAP: HostKind.KVM,
    SwitchKind.RAW: HostKind.KVM,
    SwitchKind.HOSTED_BRIDGED: HostKind.HOSTED, SwitchKind.HOSTED_HOSTONLY: HostKind.HOSTED,
    SwitchKind.HOSTED_NAT: HostKind.HOSTED,
}
#: Link endpoint kinds that are one physical socket: each takes at most one cable.
SINGLE_CABLE = frozenset({"pnic", "port", "router_interface", "host_nic"})
#: Allowed cable pairs (unordered) besides switch-switch patches.
LINKABLE = frozenset({frozenset({"pnic", "port"}), frozenset({"port"}), frozenset({"router_interface", "port"}),
                      frozenset({"host_nic", "port"})})
MIN_MTU, MAX_MTU = 68, 9216
#: The canvas: positions within +-MAX_COORDINATE and sizes up to MAX_SIZE, far beyond any real drawing,
#: and small enough that every export (pixels are whole numbers) can hold the sums.
MAX_COORDINATE, MAX_SIZE = 1_000_000.0, 100_000.0
#: Longest name or id: vSphere allows 80 characters for a VM, NSX 255 for anything; a longer one is a
#: pasted paragraph, and every drawing and table would grow with it.
MAX_NAME = 255
MAX_VNI = 2**24 - 1
_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")
_KIND_WORDS = {"pnic": "a pNIC", "port": "a switch port", "router_interface": "a router interface",
               "host_nic": "a physical host's NIC", "switch": "a virtual switch", "vm": "a VM", "vnic": "a vNIC",
               "host": "a host", "portgroup": "a portgroup", "physical_switch": "a physical switch",
               "physical_router": "a router", "physical_host": "a physical host", "link": "a link",
               "dlr": "a DLR", "dlr_interface": "a DLR interface", "note": "a note"}


def validate(topology: Topology, structure: list[Problem] | None = None) -> list[Problem]:
    """Every problem of ``topology``, errors first, then in file order; the errors of structure (see
    ``reference_errors``) are also added to ``structure`` when given."""
    checker = _Checker(topology)
    problems = checker.run()
    if structure is not None:
        structure.extend(checker.structure)
    return sorted(problems, key=lambda p: p.severity != ERROR)


def reference_errors(topology: Topology) -> list[Problem]:
    """The errors of structure: an id used twice, a reference to nothing or to the wrong kind of object.
    A backend refuses to build such a design (it would follow the reference and fail halfway)."""
    checker = _Checker(topology)
    checker.run()
    return checker.structure


def drawing_errors(topology: Topology) -> list[Problem]:
    """The errors no drawing survives: an id used twice (a box would contain itself), a reference to the
    wrong kind of object (a router "on" a cable), names beyond the limit, coordinates or sizes off the
    canvas. Exports refuse a design that has any."""
    checker = _Checker(topology)
    checker.run()
    return checker.undrawable


def run_alone(check: Callable[[], object], problems: list[Problem], what: str = "") -> None:
    """Run one check; if it fails, one more problem says which check (``what``, else its name) could not run,
    and the caller goes on: a bug in one check must not hide what every other check found."""
    try:
        check()
    except Exception as exc:  # noqa: BLE001 - any failure of one check, reported instead of raised
        what = what or "the check of " + check.__name__.removeprefix("check_").replace("_", " ")
        problems.append(Problem(ERROR, "", None, one_line(f"{what} could not run ({type(exc).__name__}: {exc})"),
                                "the other checks ran; please report this design as a bug in vnetbench"))


class _Checker:
    def __init__(self, topology: Topology) -> None:
        self.t = topology
        self.index = Index(topology)
        self.fabric = Fabric(topology, self.index)
        self.problems: list[Problem] = []
        self.structure: list[Problem] = []
        self.undrawable: list[Problem] = []

    # --- helpers -------------------------------------------------------------------------------------

    def add(self, severity: str, path: str, obj_id: str | None, message: str, hint: str) -> None:
        """Record a problem; names in it come from the file, so it is made one printable, bounded line."""
        self.problems.append(Problem(severity, one_line(path), obj_id, one_line(message), one_line(hint)))

    def error(self, path: str, obj_id: str | None, message: str, hint: str) -> None:
        self.add(ERROR, path, obj_id, message, hint)

    def warn(self, path: str, obj_id: str | None, message: str, hint: str) -> None:
        self.add(WARNING, path, obj_id, message, hint)

    def unfit(self, path: str, obj_id: str | None, message: str, hint: str) -> None:
        """An error no drawing survives (an overlong name, a box off the canvas): see ``drawing_errors``."""
        self.error(path, obj_id, message, hint)
        self.undrawable.append(self.problems[-1])

    def broken(self, path: str, obj_id: str | None, message: str, hint: str, undrawable: bool = False) -> None:
        """An error in the design's structure (an id twice, a reference to nothing or to the wrong kind):
        tools that follow references cannot use such a design at all (``reference_errors``); with
        ``undrawable``, neither can a drawing (``drawing_errors``)."""
        self.error(path, obj_id, message, hint)
        self.structure.append(self.problems[-1])
        if undrawable:
            self.undrawable.append(self.problems[-1])

    def name(self, obj_id: str | None) -> str:
        """What a person calls the object: ``esx01/vmnic0``, ``web01/eth0``, ``vSwitch1/VM Network``."""
        entry = self.index.entries.get(obj_id) if obj_id is not None else None
        if entry is None:
            return repr(obj_id)
        own = getattr(entry.obj, "name", None) or entry.obj.id
        if entry.kind == "switch" and self.index.kind(entry.obj.host) == "host":
            return f"{self.index.get(entry.obj.host).name}/{own}"
        if entry.parent is not None:
            return f"{self.name(entry.parent.id)}/{own}"
        return own

    def ref(self, path: str, owner_id: str, ref: str | None, kinds: Iterable[str], what: str) -> Any:
        """The object ``ref`` points at if it exists and is of one of ``kinds``; else report it."""
        kinds = tuple(kinds)
        if ref is None:
            return None
        kind = self.index.kind(ref)
        if kind is None:
            self.broken(path, owner_id, f"{self.name(owner_id)} refers to {what} {ref!r}, which does not exist",
                       f"point it at an existing {what} id, or remove the reference")
            return None
        if kind not in kinds:
            wanted = " or ".join(_KIND_WORDS.get(k, k) for k in kinds)
            self.broken(path, owner_id, f"{self.name(owner_id)} refers to {self.name(ref)}, which is "
                        f"{_KIND_WORDS.get(kind, kind)}, not {wanted}", f"point it at {wanted}", undrawable=True)
            return None
        return self.index.get(ref)

    def host_of_pnic(self, pnic_id: str) -> Host | None:
        parent = self.index.parent(pnic_id)
        return parent if self.index.kind(pnic_id) == "pnic" else None

    def switch_hosts(self, sw: Switch) -> list[str]:
        return list(sw.members) if sw.kind in MULTI_HOST_SWITCHES else [sw.host] if sw.host else []

    # --- the checks ----------------------------------------------------------------------------------

    def run(self) -> list[Problem]:
        for check in (self.check_ids, self.check_lengths, self.check_names, self.check_hosts, self.check_switches,
                      self.check_vms, self.check_physical, self.check_links, self.check_nsx, self.check_segments,
                      self.check_gateways, self.check_layout, self.check_teaming):
            run_alone(check, self.problems)
        return self.problems

    def check_teaming(self) -> None:
        from .teaming_checks import teaming_problems  # it builds on this module's Problem
        self.problems.extend(teaming_problems(self.t, self.fabric))

    def check_ids(self) -> None:
        for entry in self.index.duplicates:
            first = self.index.entries[entry.obj.id]
            self.broken(entry.path, entry.obj.id,
                        f"the id {entry.obj.id!r} is used twice ({first.path} and {entry.path})",
                        "give every object its own id; references would be ambiguous", undrawable=True)

    def check_lengths(self) -> None:
        design = Entry(self.t, "design")
        for entry in (design, *self.index.entries.values(), *self.index.duplicates):
            for field in ("id", "name"):
                value = getattr(entry.obj, field, "")
                if len(value) > MAX_NAME:
                    place = f"{entry.path}.{field}" if entry.path else field
                    self.unfit(place, entry.obj.id, f"the {field} at {place} is {len(value)} characters long, "
                               f"more than the limit of {MAX_NAME}", "shorten it (vSphere allows 80 characters "
                               "for a VM name)")

    def check_names(self) -> None:
        t = self.t

        def unique(items: Iterable[tuple[str, str, str]], what: str, scope: str = "") -> None:
            seen: dict[str, str] = {}
            for path, obj_id, name in items:
                key = name.strip().lower()
                if key in seen:
                    where = f" {scope}" if scope else ""
                    self.error(path, obj_id, f"two {what}{where} are named {name!r} ({seen[key]} and {path})",
                               "rename one of them")
                else:
                    seen[key] = path

        def listed(prefix: str, objs: list) -> list[tuple[str, str, str]]:
            return [(f"{prefix}[{i}]", o.id, o.name) for i, o in enumerate(objs)]

        for entry in self.index.entries.values():
            if hasattr(entry.obj, "name") and not entry.obj.name.strip():
                self.error(f"{entry.path}.name", entry.obj.id, f"the {entry.kind.replace('_', ' ')} "
                           f"{entry.obj.id!r} has no name", "give it a name people recognize, like esx01 or web01")
        unique(listed("hosts", t.hosts), "hosts")
        unique(listed("vms", t.vms) + listed("physical_hosts", t.physical_hosts), "VMs or physical hosts")
        unique(listed("physical_switches", t.physical_switches), "physical switches")
        unique(listed("physical_routers", t.physical_routers), "routers")
        unique(listed("nsx.dlrs", t.nsx.dlrs), "DLRs")
        for i, host in enumerate(t.hosts):
            unique(listed(f"hosts[{i}].pnics", host.pnics), "pNICs", f"on {host.name}")
        for i, vm in enumerate(t.vms):
            unique(listed(f"vms[{i}].vnics", vm.vnics), "vNICs", f"in {vm.name}")
        for i, ps in enumerate(t.physical_switches):
            unique(listed(f"physical_switches[{i}].ports", ps.ports), "ports", f"on {ps.name}")
        for i, sw in enumerate(t.switches):
            if not (sw.kind == SwitchKind.VSS and sw.host):  # those are checked per host below
                unique(listed(f"switches[{i}].portgroups", sw.portgroups), "portgroups", f"on {sw.name}")
        # Switch names: per host for host switches, across the design for vDS / NSX segments.
        per_host: dict[str | None, list[tuple[str, str, str]]] = defaultdict(list)
        for i, sw in enumerate(t.switches):
            per_host[None if sw.kind in MULTI_HOST_SWITCHES else sw.host].append((f"switches[{i}]", sw.id, sw.name))
        for host_id, items in per_host.items():
            unique(items, "switches", f"on {self.name(host_id)}" if host_id else "spanning hosts")
        # Standard portgroup names identify the network on an ESXi host: unique across its vSSs.
        pg_per_host: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        for i, sw in enumerate(t.switches):
            if sw.kind == SwitchKind.VSS and sw.host:
                pg_per_host[sw.host] += listed(f"switches[{i}].portgroups", sw.portgroups)
        for host_id, items in pg_per_host.items():
            unique(items, "standard portgroups", f"on {self.name(host_id)}")

    def check_hosts(self) -> None:
        for i, host in enumerate(self.t.hosts):
            if host.cpus < 1:
                self.error(f"hosts[{i}].cpus", host.id, f"{host.name} has {host.cpus} CPUs", "give it at least 1 CPU")
            for j, pnic in enumerate(host.pnics):
                path = f"hosts[{i}].pnics[{j}]"
                if pnic.speed_mbps <= 0:
                    self.error(f"{path}.speed_mbps", pnic.id,
                               f"{self.name(pnic.id)} has speed {pnic.speed_mbps} Mbit/s",
                               "set its link speed, like 1000 or 10000")
                self.check_mtu(f"{path}.mtu", pnic.id, pnic.mtu, self.name(pnic.id))
                if pnic.ip is not None and host.kind is HostKind.ESXI:
                    self.warn(f"{path}.ip", pnic.id, f"{self.name(pnic.id)} gives the ESXi host OS an address, "
                              "which vnetbench does not model (ESXi addresses live on VMkernel ports)",
                              "remove ip; host OS addresses are for hosted hypervisors and KVM hosts")
                self.check_ip_and_gateway(path, pnic.id, pnic.ip, pnic.gateway, f"the host OS on {self.name(pnic.id)}")

    def check_switches(self) -> None:
        uplink_users: dict[tuple[str, int | None], str] = {}
        for i, sw in enumerate(self.t.switches):
            path = f"switches[{i}]"
            self.check_switch_placement(path, sw)
            self.check_mtu(f"{path}.mtu", sw.id, sw.mtu, self.name(sw.id))
            if sw.kind == SwitchKind.MACVTAP:
                if sw.macvtap_mode is None:
                    self.error(f"{path}.macvtap_mode", sw.id, f"{self.name(sw.id)} is a macvtap without a mode",
                               "set macvtap_mode: bridge, vepa, private or passthrough")
                if len(sw.uplinks) != 1:
                    self.error(f"{path}.uplinks", sw.id,
                               f"{self.name(sw.id)} is a macvtap on {len(sw.uplinks)} pNICs",
                               "a macvtap sits on exactly one pNIC: list one uplink")
            elif sw.kind == SwitchKind.RAW and len(sw.uplinks) != 1:
                self.error(f"{path}.uplinks", sw.id, f"{self.name(sw.id)} is a raw socket on {len(sw.uplinks)} "
                           "pNICs", "a raw AF_PACKET attachment opens exactly one host interface: list one uplink")
            if sw.kind != SwitchKind.MACVTAP and sw.macvtap_mode is not None:
                self.error(f"{path}.macvtap_mode", sw.id,
                           f"{self.name(sw.id)} is a {sw.kind} switch but has a macvtap mode",
                           "remove macvtap_mode, or make the switch kind macvtap")
            if sw.kind == SwitchKind.HOSTED_BRIDGED and len(sw.uplinks) != 1:
                self.error(f"{path}.uplinks", sw.id, f"{self.name(sw.id)} is a bridged network on "
                           f"{len(sw.uplinks)} pNICs", "a bridged network maps to exactly one host pNIC: list one")
            if sw.kind == SwitchKind.HOSTED_HOSTONLY and sw.uplinks:
                self.error(f"{path}.uplinks", sw.id, f"{self.name(sw.id)} is host-only but has uplinks",
                           "remove the uplinks, or make it a hosted-bridged network")
            if sw.encapsulation is not None and sw.kind is not SwitchKind.NSX_SEGMENT:
                self.error(f"{path}.encapsulation", sw.id, f"{self.name(sw.id)} is a {sw.kind} switch, which "
                           "encapsulates nothing", "remove encapsulation; it belongs to NSX segments")
            if sw.kind is SwitchKind.NSX_SEGMENT:
                self.check_transport_mtu(path, sw)
            if sw.vni is not None and not 1 <= sw.vni <= MAX_VNI:
                self.error(f"{path}.vni", sw.id, f"{self.name(sw.id)} has VNI {sw.vni}, which is out of range",
                           f"use a VNI from 1 to {MAX_VNI}")
            if sw.host_address is not None:
                self.check_interface_address(f"{path}.host_address", sw.id, sw.host_address,
                                             f"the host's address on {self.name(sw.id)}")
            if sw.nat_gateway is not None:
                self.check_address(f"{path}.nat_gateway", sw.id, sw.nat_gateway, f"{self.name(sw.id)}'s NAT gateway")
                self.check_nat_source(path, sw)
            hosts = set(self.switch_hosts(sw))
            seen: set[str] = set()
            for j, up in enumerate(sw.uplinks):
                upath = f"{path}.uplinks[{j}]"
                if self.ref(f"{upath}.pnic", sw.id, up.pnic, ["pnic"], "pNIC") is None:
                    continue
                if up.pnic in seen:
                    self.error(upath, sw.id, f"{self.name(sw.id)} lists {self.name(up.pnic)} twice as an uplink",
                               "list each pNIC once")
                seen.add(up.pnic)
                owner = self.host_of_pnic(up.pnic)
                if owner is not None and hosts and owner.id not in hosts:
                    where = "a member host" if sw.kind in MULTI_HOST_SWITCHES else "its host"
                    self.error(f"{upath}.pnic", sw.id, f"{self.name(sw.id)} uses {self.name(up.pnic)} as an "
                               f"uplink, but that pNIC is not on {where}",
                               f"pick a pNIC of {where}, or add {owner.name} as a member")
                self.check_vlan_id(f"{upath}.vlan", sw.id, up.vlan, f"the uplink {self.name(up.pnic)}")
                key = (up.pnic, up.vlan)
                if sw.kind == SwitchKind.NSX_SEGMENT:
                    continue  # overlay segments share their hosts' transport pNICs
                if key in uplink_users and uplink_users[key] != sw.id:
                    self.error(f"{upath}.pnic", sw.id, f"{self.name(up.pnic)} is an uplink of both "
                               f"{self.name(uplink_users[key])} and {self.name(sw.id)}",
                               "a pNIC serves one virtual switch; give each switch its own pNIC")
                uplink_users.setdefault(key, sw.id)
            if sw.uplinks and all(up.standby for up in sw.uplinks):
                self.warn(f"{path}.uplinks", sw.id, f"every uplink of {self.name(sw.id)} is standby, so it has no "
                          "active uplink", "make the first uplink active (standby: false)")
            if sw.kind not in PORTGROUP_SWITCHES and sw.portgroups:
                self.error(f"{path}.portgroups", sw.id, f"{self.name(sw.id)} is a {sw.kind} switch, "
                           "which has no portgroups", "connect vNICs to the switch itself and remove the portgroups")
            for j, pg in enumerate(sw.portgroups):
                self.check_portgroup(f"{path}.portgroups[{j}]", sw, pg, seen)
                self.check_vlan_carried(f"{path}.portgroups[{j}].vlan", sw, pg)

    def check_nat_source(self, path: str, sw: Switch) -> None:
        """A hosted NAT service sends from the host OS's own address on its pNIC; without it the answer guesses."""
        wire = self.fabric.nat_wire(sw) if sw.host in self.index else None
        if wire is None or wire.pnic is None or self.fabric.pnic[wire.pnic].ip:
            return
        self.warn(f"{path}.nat_gateway", sw.id, f"{self.name(sw.id)} translates guests to the host OS's address on "
                  f"{self.name(wire.pnic)}, which the design does not give, so the lab borrows a free one",
                  f"set ip (and gateway) on {self.name(wire.pnic)}: the host's own address on its LAN")

    def check_transport_mtu(self, path: str, sw: Switch) -> None:
        """The classic NSX failure: a transport MTU that cannot carry a standard guest packet plus the overlay's
        headers (forwarding-rules.md "MTU"). A segment on one host encapsulates nothing."""
        if len(set(sw.members)) < 2:
            return
        for host in sw.members:
            wire = self.fabric.transport(host) if self.index.kind(host) == "host" else None
            if wire is None or wire.pnic is None:
                continue
            pnic = self.fabric.pnic[wire.pnic]
            mtu, where = min((pnic.mtu, self.name(pnic.id)), (wire.port.mtu, self.fabric.port_label(wire.port)))
            if inner_mtu(sw, mtu) < STANDARD_MTU:
                need = STANDARD_MTU + overlay_overhead(sw)
                self.warn(f"{path}.uplinks", sw.id, f"the overlay of {self.name(sw.id)} cannot carry a "
                          f"{STANDARD_MTU}-byte guest packet from {self.name(host)}: {where} has MTU {mtu}, and "
                          f"{sw.encapsulation or 'geneve'} adds {overlay_overhead(sw)} bytes",
                          f"raise the transport MTU (pNIC and switch ports) to {need} or more (1600 is usual), or "
                          f"lower {sw.name}'s MTU to {inner_mtu(sw, mtu)}")

    @cached_property
    def hosts_on(self) -> dict[str, set[str]]:
        """Portgroup or switch id -> the hosts whose VMs have a vNIC on it through the virtual switch."""
        out: dict[str, set[str]] = defaultdict(set)
        for vm in self.t.vms:
            for nic in vm.vnics:
                if nic.network is not None and vm.host is not None and nic.type not in BYPASS_TYPES:
                    out[nic.network].add(vm.host)
        return out

    def check_vlan_carried(self, path: str, sw: Switch, pg: Portgroup) -> None:
        """A portgroup whose VMs need the physical network, but whose VLAN the active uplink's port drops."""
        if sw.kind not in TAGGING_SWITCHES or self.pg_vlan(sw, pg) is None or pg.vlan.mode is not VlanMode.ACCESS:
            return
        members = self.switch_hosts(sw)
        for host in sorted(h for h in self.hosts_on.get(pg.id, ()) if h in members):
            wire = self.fabric.wire(sw, host, pg.vlan.tag)
            if wire is None or wire.pnic is not None or not self.fabric.teaming(sw, host, pg.vlan.tag):
                continue
            up, _ = self.fabric.active_uplink(self.fabric.teaming(sw, host, pg.vlan.tag))
            port = self.fabric.port_of(up.pnic) if up is not None else None
            if port is None or not port.allowed.valid:   # an unreadable list is reported on its own
                continue
            self.warn(path, pg.id, f"{self.name(pg.id)} is in VLAN {pg.vlan.tag}, but its active uplink "
                      f"{self.name(up.pnic)} plugs into {self.fabric.port_label(port)}, which does not carry it, so "
                      f"its VMs on {self.name(host)} cannot reach the physical network",
                      f"allow VLAN {pg.vlan.tag} on {port.name}" + (" (make it a trunk)" if port.mode is
                                                                     PortMode.ACCESS else "")
                      + ", or put the portgroup in a VLAN the port carries")

    def check_switch_placement(self, path: str, sw: Switch) -> None:
        want = SWITCH_HOST_KIND[sw.kind]
        if sw.kind in MULTI_HOST_SWITCHES:
            if sw.host is not None:
                self.error(f"{path}.host", sw.id, f"{sw.name} is a {sw.kind} switch, which spans member "
                           "hosts rather than one host", "move the host into members and clear host")
            if not sw.members:
                self.error(f"{path}.members", sw.id, f"{sw.name} has no member hosts",
                           "add the hosts it spans to members")
            hosts = [(f"{path}.members[{k}]", h) for k, h in enumerate(sw.members)]
            if len(set(sw.members)) != len(sw.members):
                self.error(f"{path}.members", sw.id, f"{sw.name} lists a member host twice", "list each host once")
        else:
            if sw.members:
                self.error(f"{path}.members", sw.id, f"{sw.name} is a {sw.kind} switch on one host and "
                           "cannot have members", "set host instead, or make it a vds")
            if sw.host is None:
                self.error(f"{path}.host", sw.id, f"{sw.name} is on no host", "set host to the host it lives on")
            hosts = [(f"{path}.host", sw.host)] if sw.host is not None else []
        for hpath, host_id in hosts:
            host = self.ref(hpath, sw.id, host_id, ["host"], "host")
            if host is not None and host.kind != want:
                self.error(hpath, sw.id, f"{sw.name} is a {sw.kind} switch on the {host.kind} host {host.name}",
                           f"{sw.kind} switches live on {want} hosts; pick a switch kind that host has")

    def check_portgroup(self, path: str, sw: Switch, pg: Portgroup, uplinks: set[str]) -> None:
        label = f"{self.name(sw.id)}/{pg.name}"
        vlan = self.pg_vlan(sw, pg)
        if vlan is None:
            exc = pg.vlan.problem(sw.kind)
            self.error(f"{path}.vlan", pg.id, f"{label} has VLAN {pg.vlan.text}: {exc.message}", exc.hint)
        if pg.native_vlan is not None:
            self.check_vlan_id(f"{path}.native_vlan", pg.id, pg.native_vlan, label)
            if vlan is not None and vlan.mode is not VlanMode.TRUNK:
                self.error(f"{path}.native_vlan", pg.id, f"{label} has a native VLAN but is not a trunk",
                           "remove native_vlan, or make the portgroup a trunk")
        for k, up in enumerate(pg.uplinks or []):
            if up.pnic not in uplinks:
                self.error(f"{path}.uplinks[{k}].pnic", pg.id, f"{label} overrides its uplinks with "
                           f"{self.name(up.pnic)}, which is not an uplink of {self.name(sw.id)}",
                           "an override reorders the switch's own uplinks; add the pNIC to the switch first")

    def check_vms(self) -> None:
        for i, vm in enumerate(self.t.vms):
            path = f"vms[{i}]"
            host = None
            if vm.host is None:
                self.error(f"{path}.host", vm.id, f"{vm.name} is on no host", "set host to the host it runs on")
            else:
                host = self.ref(f"{path}.host", vm.id, vm.host, ["host"], "host")
            if vm.cpus < 1:
                self.error(f"{path}.cpus", vm.id, f"{vm.name} has {vm.cpus} vCPUs", "give it at least 1 vCPU")
            if vm.hardware_version < 1:
                self.error(f"{path}.hardware_version", vm.id, f"{vm.name} has the VM hardware version "
                           f"{vm.hardware_version}", "use the version vSphere shows for it, like 19 (vmx-19)")
            if vm.guest_os.strip().lower() not in GUESTS and (host is None or host.kind != HostKind.KVM):
                self.warn(f"{path}.guest_os", vm.id, f"vnetbench does not know the guest OS {vm.guest_os!r} of "
                          f"{vm.name}, so its vNIC types are not checked",
                          "use one of " + ", ".join(GUESTS))
            for j, nic in enumerate(vm.vnics):
                self.check_vnic(f"{path}.vnics[{j}]", vm, host, nic)
            if vm.role is VmRole.VM and any(n.network for n in vm.vnics) and not any(n.ip for n in vm.vnics):
                self.warn(f"{path}.vnics", vm.id, f"{vm.name} has no address on any vNIC, so prediction finds "
                          "no way to or from it (an import that could not read the guest's address leaves it so)",
                          f"give {vm.name}'s vNIC an ip (address/prefix)")
            self.check_forwarding(path, vm)

    def check_vnic(self, path: str, vm: VM, host: Host | None, nic) -> None:
        label = f"{vm.name}/{nic.name}"
        if host is not None:
            self.check_nic_type(f"{path}.type", vm, host, nic, label)
        self.check_mtu(f"{path}.mtu", nic.id, nic.mtu, label)
        self.check_physical_function(path, vm, nic, label)
        pg, sw = None, None
        if nic.type == NicType.DIRECTPATH:
            if nic.network is not None:
                self.error(f"{path}.network", nic.id, f"{label} is a DirectPath adapter, which owns its pNIC and "
                           "takes no network", "remove network; the pNIC's switch port decides where it goes")
            return self.check_vnic_addresses(path, nic, label)
        if nic.network is None:
            self.warn(f"{path}.network", nic.id, f"{label} is connected to no network",
                      "pick a portgroup or network for it, or remove the vNIC")
        else:
            target = self.ref(f"{path}.network", nic.id, nic.network, ["portgroup", "switch"], "network")
            if isinstance(target, Portgroup):
                pg, sw = target, self.index.parent(target.id)
            elif isinstance(target, Switch):
                sw = target
                if sw.kind in PORTGROUP_SWITCHES:
                    self.error(f"{path}.network", nic.id, f"{label} is connected to the switch {self.name(sw.id)}"
                               " itself, which takes vNICs through portgroups", "connect it to one of its portgroups")
        if sw is not None and vm.host is not None and host is not None:
            hosts = self.switch_hosts(sw)
            if hosts and vm.host not in hosts:
                where = ("a switch whose members do not include" if sw.kind in MULTI_HOST_SWITCHES
                         else "a switch of another host than")
                self.error(f"{path}.network", nic.id, f"{label} is on {self.name(sw.id)}, {where} {host.name}",
                           f"connect it to a network of {host.name}, or move {vm.name}")
        if sw is not None and sw.kind == SwitchKind.MACVTAP and sw.macvtap_mode == "passthrough":
            users = [n for v in self.t.vms for n in v.vnics if n.network == sw.id]
            if len(users) > 1 and users[0] is not nic:
                self.error(f"{path}.network", nic.id, f"{label} shares the passthrough macvtap {self.name(sw.id)}",
                           "a passthrough macvtap gives its pNIC to one vNIC; use bridge or vepa mode for several")
        if nic.type == NicType.SRIOV and not isinstance(pg, Portgroup) and nic.network is not None:
            self.error(f"{path}.network", nic.id, f"{label} is an SR-IOV adapter on {self.name(nic.network)}, "
                       "but a virtual function takes its VLAN from a portgroup", "connect it to a portgroup")
        if nic.guest_vlan is not None:
            self.check_vlan_id(f"{path}.guest_vlan", nic.id, nic.guest_vlan, label)
            if pg is None and not getattr(sw, "vlan_filtering", False):   # a VLAN-filtering bridge: its port decides
                self.error(f"{path}.guest_vlan", nic.id, f"{label} tags VLAN {nic.guest_vlan} itself, but is on a "
                           "network without VLAN trunking", "remove guest_vlan, or use a trunk portgroup "
                           "(vSS VLAN 4095, vDS/OVS trunk)")
            elif self.pg_vlan(sw, pg) is not None and 1 <= nic.guest_vlan <= MAX_VLAN:
                _, problem = self.fabric.frame_vlan(sw, pg, nic.guest_vlan, label)
                if problem:
                    self.error(f"{path}.guest_vlan", nic.id, problem, "remove guest_vlan, or use a trunk portgroup "
                               "(vSS VLAN 4095, vDS/OVS trunk) that carries the VLAN")
        self.check_vnic_addresses(path, nic, label)

    def check_vnic_addresses(self, path: str, nic, label: str) -> None:
        if nic.mac is not None and not _MAC.match(nic.mac.lower()):
            self.error(f"{path}.mac", nic.id, f"{label} has MAC {nic.mac!r}, which is not a MAC address",
                       "write six hex pairs, like 00:50:56:01:02:03")
        elif nic.mac is not None and int(nic.mac[:2], 16) & 1:
            self.error(f"{path}.mac", nic.id, f"{label} has the multicast MAC {nic.mac}",
                       "a NIC needs a unicast MAC: the first byte must be even (VMware uses 00:50:56)")
        self.check_ip_and_gateway(path, nic.id, nic.ip, nic.gateway, label)

    def check_physical_function(self, path: str, vm: VM, nic, label: str) -> None:
        """SR-IOV and DirectPath adapters name the pNIC they use; a DirectPath one owns it alone."""
        if nic.type not in BYPASS_TYPES:
            if nic.physical_function is not None:
                self.error(f"{path}.physical_function", nic.id, f"{label} is a {nic.type} adapter but names a "
                           "physical function", "remove it, or make the adapter sriov or directpath")
            return
        if self.ref(f"{path}.physical_function", nic.id, nic.physical_function, ["pnic"], "pNIC") is None \
                and nic.physical_function is not None:
            return
        pnic, problem = self.fabric.physical_function(vm, nic)
        if pnic is None:
            self.error(f"{path}.physical_function", nic.id, problem,
                       f"name a pNIC of {self.name(vm.host)} as its physical_function")
            return
        if nic.type != NicType.DIRECTPATH:
            return
        uplink_of = [sw for sw in self.t.switches for u in sw.uplinks if u.pnic == pnic]
        others = [f"{v.name}/{n.name}" for v in self.t.vms for n in v.vnics
                  if n is not nic and n.physical_function == pnic]
        if uplink_of or others:
            users = [f"an uplink of {self.name(sw.id)}" for sw in uplink_of] + [f"used by {o}" for o in others]
            self.error(f"{path}.physical_function", nic.id, f"{label} passes {self.name(pnic)} through to the "
                       f"guest (DirectPath), but the pNIC is also {', '.join(users)}",
                       "a DirectPath pNIC belongs to one guest alone; give it its own pNIC")

    def check_nic_type(self, path: str, vm: VM, host: Host, nic, label: str) -> None:
        platform = PLATFORM_NIC_TYPES[host.kind]
        if nic.type not in platform:
            self.error(path, nic.id, f"{label} uses the adapter type {nic.type}, which a {host.kind} host "
                       f"({host.name}) does not offer", "use one of " + ", ".join(sorted(platform)))
            return
        allowed = allowed_nic_types(host.kind, vm.guest_os)
        if nic.type not in allowed:
            guest = GUESTS[vm.guest_os.strip().lower()].label
            self.error(path, nic.id, f"{label} uses the adapter type {nic.type}, which a {guest} guest "
                       "cannot use", "use one of " + ", ".join(sorted(allowed)))
        elif host.kind != HostKind.KVM and nic.type in MIN_HARDWARE and vm.hardware_version < MIN_HARDWARE[nic.type]:
            need = MIN_HARDWARE[nic.type]
            self.error(path, nic.id, f"{label} uses the adapter type {nic.type}, which needs VM hardware version "
                       f"{need}, but {vm.name} has version {vm.hardware_version}",
                       f"upgrade {vm.name} to hardware version {need} or later, or use e1000")

    def pg_vlan(self, sw: Switch | None, pg: Portgroup | None):
        """The portgroup's VLAN when it suits the switch kind, else None."""
        if sw is None or pg is None or pg.vlan.problem(sw.kind) is not None:
            return None
        return pg.vlan

    def check_forwarding(self, path: str, vm: VM) -> None:
        if vm.role == VmRole.VM:
            return
        fw = vm.forwarding
        if len(vm.vnics) < 2:
            self.warn(f"{path}.vnics", vm.id, f"{vm.name} is a {vm.role} with {len(vm.vnics)} vNIC(s), "
                      "so it has nothing to forward between", "give it a vNIC in each network it joins")
        for k, rule in enumerate(fw.rules):
            label = f"{vm.name}'s rule {rule.name or k + 1}"
            for side in ("src", "dst"):
                self.check_rule_match(f"{path}.forwarding.rules[{k}].{side}", vm.id, getattr(rule, side), label)
            self.check_rule_port(f"{path}.forwarding.rules[{k}].port", vm.id, rule.port, label)
        if fw.mode != ForwardMode.BRIDGED:
            return
        for j, nic in enumerate(vm.vnics):
            problems = self.fabric.bridging_problems(vm, nic)
            if not problems:
                continue
            if nic.type in BYPASS_TYPES:
                self.warn(f"{path}.vnics[{j}].type", vm.id, f"{vm.name} bridges through {problems[0]}, so the "
                          "firewall will drop traffic", "give a bridged firewall's legs ordinary vNICs (vmxnet3)")
                continue
            missing = [p.removeprefix(f"portgroup {self.index.get(nic.network).name} rejects ") for p in problems]
            pg = self.index.get(nic.network)
            self.warn(f"{path}.vnics[{j}].network", vm.id, f"{vm.name} bridges through {self.name(pg.id)}, "
                      f"which rejects {' and '.join(missing)}, so the firewall will drop traffic",
                      f"accept {' and '.join(missing)} on {pg.name}'s security policy")

    def check_rule_match(self, path: str, owner: str, value: str, label: str) -> None:
        if value.strip().lower() == "any" or value in self.index:
            return
        try:
            ipaddress.ip_network(value, strict=False)
        except ValueError:
            self.error(path, owner, f"{label} matches {value!r}, which is neither an address, a network nor "
                       "an object id", "write any, an address, a network like 10.0.1.0/24, or an object's id")

    def check_rule_port(self, path: str, owner: str | None, port: int | str | None, label: str) -> None:
        """A port is a number 1..65535 or a range ``1000-2000``."""
        if port is None:
            return
        lo_text, _, hi_text = str(port).strip().partition("-")
        bounds = [int(t) for t in (lo_text, hi_text or lo_text) if t.isdigit()]
        if len(bounds) != 2 or not 1 <= bounds[0] <= bounds[1] <= 65535:
            self.error(path, owner, f"{label} matches port {port!r}, which is not a port or a port range",
                       "write a port from 1 to 65535, or a range like 5201-5210")

    def check_physical(self) -> None:
        for i, ps in enumerate(self.t.physical_switches):
            for j, port in enumerate(ps.ports):
                path = f"physical_switches[{i}].ports[{j}]"
                label = f"{ps.name}/{port.name}"
                self.check_vlan_id(f"{path}.access_vlan", port.id, port.access_vlan, label)
                self.check_vlan_id(f"{path}.native_vlan", port.id, port.native_vlan, label)
                self.check_mtu(f"{path}.mtu", port.id, port.mtu, label)
                if not port.allowed.valid:
                    self.error(f"{path}.allowed", port.id, f"{label} allows {port.allowed.text!r}: "
                               f"{port.allowed.error}", port.allowed.hint)
                if port.mode == PortMode.ACCESS and port.allowed.ranges != ALL_VLANS:
                    self.warn(f"{path}.allowed", port.id, f"{label} is an access port, so its allowed VLAN list "
                              "has no effect", "make it a trunk, or remove allowed")
        for i, rt in enumerate(self.t.physical_routers):
            path = f"physical_routers[{i}]"
            self.ref(f"{path}.switch", rt.id, rt.switch, ["physical_switch"], "physical switch")
            for j, itf in enumerate(rt.interfaces):
                label = f"{rt.name}/{itf.name}"
                self.check_vlan_id(f"{path}.interfaces[{j}].vlan", itf.id, itf.vlan, label)
                if itf.ip is not None:
                    self.check_interface_address(f"{path}.interfaces[{j}].ip", itf.id, itf.ip, label)
            for j, route in enumerate(rt.routes):
                rpath = f"{path}.routes[{j}]"
                try:
                    ipaddress.IPv4Network(route.prefix)
                except ValueError:
                    self.error(f"{rpath}.prefix", rt.id, f"{rt.name} has a route to {route.prefix!r}, which is "
                               "not a network", "write the network like 10.20.0.0/16 (host bits zero)")
                self.check_address(f"{rpath}.via", rt.id, route.via, f"{rt.name}'s next hop")
        for i, ph in enumerate(self.t.physical_hosts):
            for j, nic in enumerate(ph.nics):
                path = f"physical_hosts[{i}].nics[{j}]"
                label = f"{ph.name}/{nic.name}"
                self.check_vlan_id(f"{path}.vlan", nic.id, nic.vlan, label)
                self.check_ip_and_gateway(path, nic.id, nic.ip, nic.gateway, label)

    def check_links(self) -> None:
        used: dict[str, str] = {}
        for i, link in enumerate(self.t.links):
            path = f"links[{i}]"
            ka, kb = self.index.kind(link.a), self.index.kind(link.b)
            for side, ref, kind in (("a", link.a, ka), ("b", link.b, kb)):
                if kind is None:
                    self.broken(f"{path}.{side}", link.id, f"link {link.id} ends at {ref!r}, which does not exist",
                               "point both ends at existing objects, or remove the link")
            if ka is None or kb is None:
                continue
            if link.a == link.b:
                self.error(path, link.id, f"link {link.id} joins {self.name(link.a)} to itself",
                           "connect it to something else")
                continue
            if link.speed_mbps is not None and not (ka == kb == "port" and link.speed_mbps > 0):
                self.error(f"{path}.speed_mbps", link.id, f"link {link.id} has speed {link.speed_mbps} Mbit/s",
                           "a speed belongs to a trunk between two switch ports and is a positive number, like 10000")
            if ka == kb == "switch":
                self.check_patch(path, link.id, self.index.get(link.a), self.index.get(link.b))
            elif frozenset({ka, kb}) not in LINKABLE:
                self.broken(path, link.id, f"link {link.id} joins {self.name(link.a)} ({_KIND_WORDS.get(ka, ka)}) "
                           f"to {self.name(link.b)} ({_KIND_WORDS.get(kb, kb)}), which cannot be cabled",
                           "cable a pNIC, router interface or physical host NIC to a switch port, or two switch "
                           "ports (a trunk)")
                continue
            for side, ref, kind in (("a", link.a, ka), ("b", link.b, kb)):
                if kind not in SINGLE_CABLE:
                    continue
                if ref in used:
                    self.error(f"{path}.{side}", link.id, f"{self.name(ref)} is plugged in twice (links "
                               f"{used[ref]} and {link.id})", "one socket takes one cable; remove a link")
                used.setdefault(ref, link.id)

    def check_patch(self, path: str, link_id: str, a: Switch, b: Switch) -> None:
        if patchable(a, b):
            host = self.index.get(a.host)
            if host is not None and host.kind == HostKind.KVM:
                return
        self.error(path, link_id, f"link {link_id} joins the virtual switches {self.name(a.id)} and "
                   f"{self.name(b.id)} directly", "virtual switches do not connect to each other (ESXi has no such "
                   "link); join them through uplinks and a physical switch, or a router VM. Only OVS and Linux "
                   "bridges on one KVM host can be patched")

    def check_nsx(self) -> None:
        for i, dlr in enumerate(self.t.nsx.dlrs):
            for j, itf in enumerate(dlr.interfaces):
                path = f"nsx.dlrs[{i}].interfaces[{j}]"
                self.ref(f"{path}.network", itf.id, itf.network, ["portgroup", "switch"], "network")
                self.check_interface_address(f"{path}.ip", itf.id, itf.ip, f"{dlr.name}/{itf.name}")
        for i, rule in enumerate(self.t.nsx.dfw.rules):
            path = f"nsx.dfw.rules[{i}]"
            label = f"the DFW rule {rule.name or i + 1}"
            for k, target in enumerate(rule.applied_to):
                if target not in self.index:
                    self.broken(f"{path}.applied_to[{k}]", None, f"{label} is applied to {target!r}, which does "
                               "not exist", "apply it to existing VMs, vNICs, portgroups or switches")
                elif self.index.kind(target) not in ("vm", "vnic", "portgroup", "switch"):
                    self.broken(f"{path}.applied_to[{k}]", target, f"{label} is applied to {self.name(target)}, "
                               "which has no vNICs", "apply it to VMs, vNICs, portgroups or switches")
            for side in ("src", "dst"):
                self.check_rule_match(f"{path}.{side}", None, getattr(rule, side), label)
            self.check_rule_port(f"{path}.port", None, rule.port, label)

    def check_segments(self) -> None:
        """Duplicate IPs and MACs in one segment (the prediction's lint finds them across an L2 domain)."""
        ips: dict[tuple, tuple[str, str]] = {}
        macs: dict[tuple, tuple[str, str]] = {}
        for i, vm in enumerate(self.t.vms):
            for j, nic in enumerate(vm.vnics):
                seg = self.fabric.place(vm, nic).segment if vm.host in self.index else None
                if seg is None:
                    continue
                label, path = f"{vm.name}/{nic.name}", f"vms[{i}].vnics[{j}]"
                address = _address(nic.ip)
                if address is not None:
                    self.once(ips, (seg, address), path + ".ip", nic.id, label, f"the address {address}")
                if nic.mac:
                    self.once(macs, (seg, nic.mac.lower()), path + ".mac", nic.id, label, f"the MAC {nic.mac}")
        for i, dlr in enumerate(self.t.nsx.dlrs):
            for j, itf in enumerate(dlr.interfaces):
                sw = self.index.parent(itf.network) if self.index.kind(itf.network) == "portgroup" else \
                    self.index.get(itf.network)
                address = _address(itf.ip)
                if address is None or self.index.kind(getattr(sw, "id", None)) != "switch":
                    continue
                for host in self.switch_hosts(sw):
                    seg, _ = self.fabric.network_segment(itf.network, host, itf.name)
                    if seg is not None:
                        self.once(ips, (seg, address), f"nsx.dlrs[{i}].interfaces[{j}].ip", itf.id,
                                  f"{dlr.name}/{itf.name}", f"the address {address}")

    def once(self, seen: dict, key: tuple, path: str, obj_id: str, label: str, what: str) -> None:
        if key in seen:
            self.error(path, obj_id, f"{label} has {what}, which {seen[key][1]} in the same segment has too",
                       "give each NIC in a segment its own address")
        else:
            seen[key] = (path, label)

    def check_gateways(self) -> None:
        """A gateway that nothing in the design owns, or that something owns which does not route."""
        routers = {_address(p.ip) for rt in self.t.physical_routers for p in rt.interfaces}
        routers |= {_address(n.ip) for vm in self.t.vms if vm.role is not VmRole.VM for n in vm.vnics}
        routers |= {_address(i.ip) for dlr in self.t.nsx.dlrs for i in dlr.interfaces}
        routers |= {sw.nat_gateway.strip() for sw in self.t.switches if sw.nat_gateway}
        hosts = {_address(sw.host_address): self.name(sw.host) for sw in self.t.switches if sw.host_address}
        hosts |= {_address(p.ip): self.name(p.id) for h in self.t.hosts for p in h.pnics if p.ip}
        others = {_address(n.ip): self.name(n.id) for vm in self.t.vms if vm.role is VmRole.VM for n in vm.vnics}
        others |= {_address(n.ip): self.name(n.id) for ph in self.t.physical_hosts for n in ph.nics}
        nics = [(f"vms[{i}].vnics[{j}]", n, f"{vm.name}/{n.name}") for i, vm in enumerate(self.t.vms)
                for j, n in enumerate(vm.vnics)]
        nics += [(f"physical_hosts[{i}].nics[{j}]", n, f"{ph.name}/{n.name}")
                 for i, ph in enumerate(self.t.physical_hosts) for j, n in enumerate(ph.nics)]
        for path, nic, label in nics:
            gateway = _address(nic.gateway) if nic.gateway else None
            if gateway is None or gateway in routers or not _inside(gateway, nic.ip):
                continue  # (a gateway outside the subnet, or without an address, is reported on its own)
            owner = hosts.get(gateway) or others.get(gateway)
            if owner is not None:
                self.warn(f"{path}.gateway", nic.id, f"{label}'s gateway {gateway} is {owner}'s address, which "
                          "does not route", "point it at a router, a firewall or router VM, a DLR or a NAT service")
            else:
                self.warn(f"{path}.gateway", nic.id, f"nothing in the design owns {label}'s gateway {gateway}, so "
                          "its traffic to other subnets goes nowhere",
                          f"give a router interface the address {gateway}, or correct the gateway")

    def check_layout(self) -> None:
        self.check_layout_bounds()
        for obj_id in self.t.layout.places:
            # "<object>@<host>": a vDS proxy, its portgroups or a DLR instance drawn inside a member host
            if obj_id not in self.index and not all(part in self.index for part in obj_id.split("@", 1)):
                self.warn(f"layout.places.{obj_id}", None, f"the canvas keeps a position for {obj_id!r}, which "
                          "does not exist", "remove that entry (saving from the designer drops it)")

    def check_layout_bounds(self) -> None:
        boxes: list[tuple[str, str | None, Place | Note]] = [(f"layout.places.{k}", k, p)
                                                     for k, p in self.t.layout.places.items()]
        boxes += [(f"layout.notes[{i}]", n.id, n) for i, n in enumerate(self.t.layout.notes)]
        for path, obj_id, box in boxes:
            for name, value, low, high in (("x", box.x, -MAX_COORDINATE, MAX_COORDINATE),
                                           ("y", box.y, -MAX_COORDINATE, MAX_COORDINATE),
                                           ("w", box.w, 0.0, MAX_SIZE), ("h", box.h, 0.0, MAX_SIZE)):
                if value is not None and not low <= value <= high:
                    self.unfit(f"{path}.{name}", obj_id, f"the canvas places {obj_id!r} at {name} = {value:g}, "
                               f"outside the canvas ({low:g} to {high:g})", "move it back, or remove the "
                               "entry (the designer then lays it out)")
                    break

    # --- values ----------------------------------------------------------------------------------------

    def check_mtu(self, path: str, obj_id: str, value: int, label: str) -> None:
        if not MIN_MTU <= value <= MAX_MTU:
            self.error(path, obj_id, f"{label} has MTU {value}, which is out of range",
                       f"use an MTU from {MIN_MTU} to {MAX_MTU} (1500 standard, 9000 jumbo)")

    def check_vlan_id(self, path: str, obj_id: str, value: int | None, label: str) -> None:
        if value is not None and not 1 <= value <= MAX_VLAN:
            self.error(path, obj_id, f"{label} has VLAN {value}, which is out of range",
                       f"use a VLAN id from 1 to {MAX_VLAN}")

    def check_address(self, path: str, obj_id: str | None, value: str, label: str) -> bool:
        try:
            ipaddress.IPv4Address(value)
        except ValueError:
            self.error(path, obj_id, f"{label} is {value!r}, which is not an IPv4 address",
                       "write a plain address like 10.0.1.1 (no prefix)")
            return False
        return True

    def check_interface_address(self, path: str, obj_id: str, value: str, label: str) -> bool:
        """``address/prefix`` with a usable host address; report and return False otherwise."""
        try:
            itf = ipaddress.IPv4Interface(value)
        except ValueError:
            itf = None
        if itf is None or "/" not in value:
            self.error(path, obj_id, f"{label} has the address {value!r}, which is not in address/prefix form",
                       "write it like 10.0.1.10/24")
            return False
        net = itf.network
        if net.prefixlen <= 30 and itf.ip in (net.network_address, net.broadcast_address):
            what = "network" if itf.ip == net.network_address else "broadcast"
            self.error(path, obj_id, f"{label} has {itf.ip}, which is the {what} address of {net}",
                       "pick a host address inside the subnet")
            return False
        return True

    def check_ip_and_gateway(self, path: str, obj_id: str, ip: str | None, gateway: str | None, label: str) -> None:
        ok = ip is not None and self.check_interface_address(f"{path}.ip", obj_id, ip, label)
        if gateway is None or not self.check_address(f"{path}.gateway", obj_id, gateway, f"{label}'s gateway"):
            return
        if ok:
            itf = ipaddress.IPv4Interface(ip)
            if ipaddress.IPv4Address(gateway) not in itf.network:
                self.error(f"{path}.gateway", obj_id, f"{label} has the gateway {gateway}, which is outside its "
                           f"subnet {itf.network}", f"use a gateway inside {itf.network}, or fix the prefix")
            elif ipaddress.IPv4Address(gateway) == itf.ip:
                self.error(f"{path}.gateway", obj_id, f"{label} has its own address {gateway} as gateway",
                           "use the router's address")
        elif ip is None:
            self.warn(f"{path}.gateway", obj_id, f"{label} has a gateway but no address",
                      "give it an address/prefix in the gateway's subnet")


def _inside(address: str, ip: str | None) -> bool:
    try:
        return ip is not None and ipaddress.IPv4Address(address) in ipaddress.IPv4Interface(ip).network
    except ValueError:
        return False


def _address(ip: str | None) -> str | None:
    try:
        return str(ipaddress.IPv4Interface(ip).ip) if ip else None
    except ValueError:
        return None
