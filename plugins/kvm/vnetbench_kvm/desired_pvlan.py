"""Private VLANs on an Open vSwitch, as OpenFlow rules (forwarding-rules.md "Private VLANs").

OVS has no private VLANs of its own; admins build them from flows, and so does this backend. Each VLAN of a
private VLAN in use leaves the host through its own uplink port (``pnics=emulate``: the veth, or bond, into that
physical VLAN, as any segment; the ones no guest uses too, so the host hears them, as the prediction's listener
segments do). Each guest port of the map, and each of those uplink ports, then gets one flow, above the bridge's
``NORMAL`` one, that floods its frames to exactly the ports its role may reach:

- a guest port: the guest ports whose role ``pvlan_may_talk`` allows, and the uplink of the one VLAN its role
  sends on (``pvlan_wire_vlans``: promiscuous on the primary, the others on their secondary);
- an uplink port of VLAN ``v``: the guest ports ``v``'s role may talk to, never another uplink.

Flooding instead of MAC learning inside the map keeps it obviously right (ARP included). The roles come from
``vnetbench.model.forwarding``, as prediction asks them; this module only turns them into ports. Flows carry
the want's mark in their cookie (``pvlan_flows.cookie``), so plan, sweep and teardown touch only vnetbench's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vnetbench.model import SwitchKind
from vnetbench.model.forwarding import pvlan_entry, pvlan_may_talk, pvlan_port, pvlan_vlans, pvlan_wire_vlans

from vnetbench.backends.planning import Want

from .config import libvirt_name

if TYPE_CHECKING:
    from vnetbench.model import VM, Pvlan, VNic
    from vnetbench.model.forwarding import Place


class PvlanParts:
    """Mixed into the KVM desired-state builder (``desired._Builder``): private VLAN maps of OVS switches."""

    # (set by the builder)
    d: Any
    ix: Any
    tag: str
    emulate: bool
    reasons: list[str]
    wants: dict[str, Want]
    guests: dict[str, Any]
    wires: dict[str, list[dict[str, Any]]]
    switch_keys: dict[str, str]
    used_vlans: dict[str, set[int | None]]
    segment_nics: dict[tuple[str, int | None], list[tuple[VM, VNic, Place]]]
    segment_ports: dict[tuple[str, int | None], str]

    if TYPE_CHECKING:          # the builder's own methods
        def add(self, want: Want) -> None: ...
        def nic_mac(self, nic: VNic) -> str: ...

    def _pvlan_switches(self) -> list[Any]:
        """The OVS switches of the design whose portgroups use their private VLAN map."""
        return [sw for sw in self.d.switches if sw.kind is SwitchKind.OVS and sw.id in self.switch_keys
                and any(pvlan_port(sw, pg) for pg in sw.portgroups)]

    def pvlan_checks(self) -> None:
        """Refuse what the flows do not realise: real pNICs (their uplink is one trunk, which these flows do not
        tag), and a patch to a switch with a map (a patch port would carry frames past the roles)."""
        for sw in self._pvlan_switches():
            if not self.emulate:
                self.reasons.append(f"Open vSwitch {sw.name} holds private VLANs, which the KVM backend builds "
                                    "with pnics=emulate only (with real pNICs the uplink is one trunk, and its "
                                    "flows would have to tag each role's VLAN); deploy with pnics=emulate")
            for link in self.d.links:
                if sw.id in (link.a, link.b) and {self.ix.kind(link.a), self.ix.kind(link.b)} == {"switch"}:
                    self.reasons.append(f"Open vSwitch {sw.name} holds private VLANs and is patched to another "
                                        "switch, which the KVM backend's private VLAN flows do not cover; remove "
                                        "the patch")

    def pvlan_listeners(self) -> None:
        """Every VLAN of a private VLAN in use leaves through its own uplink port (``uplinks`` wires each)."""
        for sw in self._pvlan_switches():
            primaries = {e.primary for (sid, vlan) in self.segment_nics if sid == sw.id
                         and (e := pvlan_entry(sw.pvlans, vlan)) is not None}
            for primary in primaries:
                self.used_vlans.setdefault(sw.id, set()).update(pvlan_vlans(sw.pvlans, primary))

    def pvlan_flows(self) -> None:
        """One ``flows`` want per OVS bridge with a private VLAN in use: a flow per guest and uplink port."""
        for sw in self._pvlan_switches():
            key = self.switch_keys[sw.id]
            flows: list[dict[str, Any]] = []
            deps = {key}
            for primary in sorted({e.primary for e in sw.pvlans}):
                guests: list[tuple[str, Pvlan]] = []
                for vlan in pvlan_vlans(sw.pvlans, primary):
                    entry = pvlan_entry(sw.pvlans, vlan)
                    for vm, nic, _ in self.segment_nics.get((sw.id, vlan), []):
                        if vm.id in self.guests and entry is not None:
                            guests.append((self.nic_mac(nic), entry))
                            deps.add(f"domain/{libvirt_name(self.tag, vm.name)}")
                if not guests:
                    continue
                uplinks = {vlan: port for vlan in pvlan_vlans(sw.pvlans, primary)
                           if (port := self.segment_ports.get((sw.id, vlan))) is not None}
                deps |= {w.key for w in self.wants.values() if w.kind in ("pnic", "bond") and _names_port(w, uplinks)}
                for mac, entry in guests:
                    out = [{"mac": m} for m, e in guests if m != mac and pvlan_may_talk(entry, e)]
                    send = uplinks.get(pvlan_wire_vlans(entry)[0])
                    flows.append({"in": {"mac": mac}, "out": out + ([{"port": send}] if send else []),
                                  "role": f"{entry.type.value} {entry.secondary}"})
                for vlan, port in sorted(uplinks.items()):
                    entry = pvlan_entry(sw.pvlans, vlan)
                    flows.append({"in": {"port": port},
                                  "out": [{"mac": m} for m, e in guests if pvlan_may_talk(entry, e)],
                                  "role": f"uplink of {entry.type.value if entry else 'VLAN'} {vlan}"})
            if not flows:
                continue
            bridge = self.wants[key].spec["bridge"]
            self.add(Want("flows", f"flows/{bridge}", {"bridge": bridge, "flows": flows},
                          f"private VLAN flows on {sw.name} ({bridge}, {len(flows)} ports)", sw.id,
                          tuple(sorted(deps)), host=sw.host))


def _names_port(w: Want, ports: dict[int, str]) -> bool:
    """Whether a pNIC or bond want makes one of ``ports``."""
    names = set(ports.values())
    if w.kind == "bond":
        return w.spec["name"] in names
    return any(x["host_if"] in names for x in w.spec["wires"])


def pvlan_portgroup(sw: Any, pg: Any) -> dict[str, Any] | None:
    """A private VLAN port's libvirt ``<vlan>``: its role's VLAN as the access tag (None: not one)."""
    if sw.kind is not SwitchKind.OVS or not pvlan_port(sw, pg):
        return None
    return {"tags": [pg.pvlan], "trunk": False, "native": None}


def pvlan_map(sw: Any) -> dict[str, Any]:
    """An OVS switch's private VLAN map for its want's spec (``{}`` without one): written into the libvirt
    network's mark (``xml.network_xml``), so import gives it back."""
    if sw.kind is not SwitchKind.OVS or not sw.pvlans:
        return {}
    return {"pvlans": [{"primary": e.primary, "secondary": e.secondary, "type": e.type.value} for e in sw.pvlans]}
