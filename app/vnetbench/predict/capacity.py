"""What the parts of a path carry, for the estimate: a vNIC's rate, a sender's packet rate, a forwarding VM's cap."""

from __future__ import annotations

from ..model.forwarding import BYPASS_TYPES
from .network import Point
from .walkbase import WalkerBase


class CapacityWalker(WalkerBase):
    """The capacity figures the walk records on its way."""

    def _vnic_capacity(self, point: Point) -> tuple[float, str, tuple[float, float] | None, str]:
        """What a vNIC carries: its type's calibrated rate (with the measured rounds' range, where the profile
        has one); an SR-IOV or DirectPath adapter is the pNIC itself."""
        seg = self.net.segments[point.segment] if point.segment is not None else None
        pnic = self.net.pnic.get(seg.object_id) if seg is not None and point.nic_type in BYPASS_TYPES else None
        if pnic is not None:
            return (pnic.speed_mbps * self.cal.pnic_efficiency, f"{point.name} ({point.nic_type} on {pnic.name})", None,
                    point.nic)
        return (self.cal.vnic(point.nic_type), f"{point.name} ({point.nic_type})", self.cal.vnic_spread(point.nic_type),
                point.nic)

    def _sender(self, point: Point) -> str:
        """Which small-UDP packet-rate figure a sender reaches (seed 001): a physical host's NIC, or a qemu guest
        on tap + bridge, on macvtap or on a raw AF_PACKET attachment; "" where no figure applies (ESXi...)."""
        if not point.nic_type:
            return "physical"
        seg = self.net.segments[point.segment] if point.segment is not None else None
        if seg is None or seg.host is None or self.net.index.kind(seg.host) != "host" \
                or str(self.net.index.get(seg.host).kind) != "kvm":
            return ""
        switch = self.net.index.get(seg.object_id) if seg.object_id else None
        kind = str(getattr(switch, "kind", ""))
        return {"macvtap": "macvtap", "raw": "raw_af_packet"}.get(kind, "tap_bridge")

    def _forwarding_capacity(self, types) -> float:
        """A forwarding VM moves traffic as fast as its vNICs, but emulated drivers cap it (seed 000)."""
        types = [t for t in types if t] or ["vmxnet3"]
        cap = min(self.cal.vnic(t) for t in types)
        if any(t not in self.cal.paravirtual_types for t in types):
            cap = min(cap, self.cal.emulated_forwarding_cap_mbps)
        return cap
