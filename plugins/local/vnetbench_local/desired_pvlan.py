"""Private VLANs in the lab (forwarding-rules.md "Private VLANs"), wired as the prediction answers them.

Every VLAN of one private VLAN on one host's vDS or OVS switch is one bridge (``names.pvlan_bridge_name``: the
switch joins its ports); each VLAN of the map leaves through its own uplink veth into the physical switch's
bridge of that VLAN, as any segment does (``pvlan_listeners`` makes the ones no vNIC of the host uses, so the host hears them). An
nftables bridge rule per role then lets a frame out of a port only where the roles allow:

- a vNIC's frame reaches the vNICs its role may talk to (``pvlan_may_talk``) and leaves on the one VLAN its
  role sends on (``pvlan_wire_vlans``: a promiscuous port on the primary, the others on their secondary);
- a frame coming in on VLAN ``v`` takes ``v``'s role and reaches the vNICs that role may talk to, never
  another uplink.

The uplink ports do not learn MACs: a remote port answers on its own VLAN, but a frame to it must leave on
the sender's, so frames to remote MACs flood and the rules choose the VLAN.

So an endpoint outside the private VLAN (a physical host, another switch's port) on an isolated VLAN's network
reaches only the promiscuous ports, as on a vDS and as the prediction answers (``decide.pvlan_outsider_allowed``).
"""

from __future__ import annotations

from vnetbench.model import Pvlan
from vnetbench.model.forwarding import (
    SegmentKey, Switching, pvlan_entry, pvlan_may_talk, pvlan_role_words, pvlan_segment_entry, pvlan_vlans,
    pvlan_wire_vlans,
)

from .desired_team import TeamParts


class PvlanParts(TeamParts):
    """Private VLANs: the per-host bridge of every VLAN of one private VLAN, and the rules of the roles."""

    def _pvlan_keys(self) -> dict[tuple[str, str | None, int], list[tuple[SegmentKey, Pvlan]]]:
        """(switch, host, primary) -> the segments of that private VLAN on that host, with their roles."""
        out: dict[tuple[str, str | None, int], list[tuple[SegmentKey, Pvlan]]] = {}
        for key in self.segments:
            sw = self.fabric.switch.get(key.switch) if key.switching is Switching.VIRTUAL else None
            entry = pvlan_segment_entry(sw, key.vlan)
            if entry is not None and key.guest is None and key.uplink is None:
                out.setdefault((key.switch, key.host, entry.primary), []).append((key, entry))
        return out

    def pvlan_listeners(self) -> None:
        """Each host with a port in a private VLAN takes every VLAN of its map on its uplinks (the prediction's
        listener segments): one segment key per VLAN, all on the private VLAN's bridge."""
        for (switch, host, primary) in list(self._pvlan_keys()):
            sw = self.fabric.switch[switch]
            for vlan in pvlan_vlans(sw.pvlans, primary):
                self.bridge_of(SegmentKey(switch, host, vlan))

    def pvlan_filters(self) -> None:
        """The roles as nftables bridge rules in each host's namespace (first in its forward chain)."""
        ports: dict[tuple[str, str | None, int], dict[int, list[str]]] = {}   # group -> role VLAN -> vNIC ports
        for ns, port, vm, nic in self.vm_ports:
            key = self.fabric.place(vm, nic).segment
            sw = self.fabric.switch.get(key.switch) if key is not None and key.switching is Switching.VIRTUAL else None
            entry = pvlan_segment_entry(sw, key.vlan) if key is not None else None
            if key is not None and entry is not None:
                ports.setdefault((key.switch, key.host, entry.primary), {}).setdefault(
                    entry.secondary, []).append(port)
        for group, members in self._pvlan_keys().items():
            sw = self.fabric.switch[group[0]]
            seg = self.segments[members[0][0]]
            vnics = ports.get(group, {})
            wires = {entry.secondary: self.wire_port(key, seg.bridge) for key, entry in members}
            rules = []
            for entry in sorted({e.secondary: e for _, e in members}.values(), key=lambda e: e.secondary):
                heard = [p for role, names in vnics.items()
                         if pvlan_may_talk(entry, pvlan_entry(sw.pvlans, role)) for p in names]
                own = vnics.get(entry.secondary, [])
                send = wires.get(pvlan_wire_vlans(entry)[0])
                if own:
                    rules.append(_only(own, heard + ([send] if send else []), entry))
                wire = wires.get(entry.secondary)
                if wire:
                    rules.append(_only([wire], heard, entry))
            self.bridge_rules[seg.ns] = rules + self.bridge_rules.get(seg.ns, [])
            for wire in filter(None, wires.values()):
                self.keep_apart(seg.ns, wire)

    def check_pvlan(self) -> None:
        """Refuse a vNIC of a private VLAN pinned to an uplink (its VLANs leave through the failover order's),
        and an endpoint on a VLAN of a physical switch's own private VLAN map (the lab's physical switches carry
        every VLAN plainly, while the prediction gives it the map's role)."""
        for who, ps, entry in self.fabric.pvlan_aware_ports(self.d):
            self.reasons.append(f"{who} is on the {pvlan_role_words(entry)} of {ps.name}'s own map, which the "
                                "local lab does not enforce (its physical switches carry every VLAN plainly); "
                                "remove the map from the physical switch, or predict without deploying")
        for vm in self.d.vms:
            for nic in vm.vnics:
                key = self.vnic_key(vm, nic)
                sw = self.fabric.switch.get(key.switch) if key is not None and key.uplink is not None else None
                if key is not None and pvlan_segment_entry(sw, key.vlan) is not None:
                    self.reasons.append(f"{vm.name}/{nic.name} is a private VLAN port pinned to an uplink, which "
                                        "the local lab cannot emulate (it sends a private VLAN's ports through "
                                        "the failover order)")


def _only(sources: list[str], allowed: list[str], entry: Pvlan) -> str:
    """A rule dropping what ``sources`` send to any port but ``allowed``."""
    src = ", ".join(f'"{p}"' for p in sorted(sources))
    words = f'comment "private VLAN {entry.primary}: {entry.type.value} {entry.secondary}"'
    if not allowed:
        return f"iifname {{ {src} }} drop {words}"
    dst = ", ".join(f'"{p}"' for p in sorted(set(allowed)))
    return f"iifname {{ {src} }} oifname != {{ {dst} }} drop {words}"
