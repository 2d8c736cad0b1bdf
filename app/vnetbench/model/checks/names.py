"""Checks of identity: ids used once, names present, unique where people tell objects apart, and not too long."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ..index import Entry
from ..objects import MULTI_HOST_SWITCHES, SwitchKind
from .values import ValueChecks

#: Longest name or id: vSphere allows 80 characters for a VM, NSX 255 for anything; a longer one is a
#: pasted paragraph, and every drawing and table would grow with it.
MAX_NAME = 255


class NameChecks(ValueChecks):
    """Ids, names and their lengths."""

    def check_ids(self) -> None:
        """An id used twice makes every reference to it ambiguous."""
        for entry in self.index.duplicates:
            first = self.index.entries[entry.obj.id]
            self.broken(entry.path, entry.obj.id,
                        f"the id {entry.obj.id!r} is used twice ({first.path} and {entry.path})",
                        "give every object its own id; references would be ambiguous", undrawable=True)

    def check_lengths(self) -> None:
        """Ids and names beyond ``MAX_NAME``, which no platform or drawing takes."""
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
        """Missing names, and names used twice where people tell objects apart by name."""
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
