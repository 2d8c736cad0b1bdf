"""The fabric as admins build it, on KVM: VLAN-filtering Linux bridges and bonds of uplinks (issue 23).

**A VLAN-filtering Linux bridge** is realised as an Open vSwitch bridge (the userspace datapath needs no kernel
module, where the host kernel may have no bridge VLAN filtering): each guest port gets libvirt's ``<vlan>`` from
its ``bridge_vlans`` through a libvirt portgroup of its own, ``trunk='yes'`` with the VLANs it carries and its
PVID as the native tag, ``nativeMode='untagged'`` when the PVID leaves untagged, ``'tagged'`` when not, no native
tag without a PVID (untagged frames dropped, as ``bridge vlan`` without pvid). A port that sends VLANs other
than its PVID untagged has no OVS equivalent and is refused. Which VLAN a guest joins and which uplink carries a
VLAN out come from ``vnetbench.model.forwarding`` (``Fabric.place``, ``Fabric.wire``), as prediction asks them.

**A bond**: where the vNICs of one segment may leave through several uplinks (a spreading policy, IP hash, a LAG,
or pins to different uplinks), or the design sets the explicit failover order with backup uplinks, those uplinks
become one OVS bond on the segment's OVS bridge, in the mode that matches the policy (``BOND_MODES``). It is built only where every member lands in the same physical VLAN of one
physical switch: then which member a flow takes changes no answer, however OVS hashes. Where the members lead to
different networks, the answer depends on the member ESXi or OVS picks per vNIC or flow, which a bond does not
reproduce: refused, as the local lab refuses it (``vnetbench_local.unemulated``). LACP (``balance-tcp``) needs
a partner: the emulated physical switch has none (no bonding driver in its namespace), so LACP is refused there.
With ``pnics=real`` the switch's uplink is one OVS trunk port on the host's pNIC, or one bond of its pNICs, LACP
included (``real_uplink``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vnetbench.model import VM, BridgeVlans, LacpMode, LoadBalancing, SwitchKind, Uplink, VNic
from vnetbench.model.forwarding import Place, UplinkChoice, UplinkChooser, Wire, filters_vlans, teaming_policy

from vnetbench.backends.planning import Want, digest

from .config import ifname

#: OVS bond mode per load-balancing policy. Port ID, MAC hash and load-based spread vNICs by source MAC over
#: the members (balance-slb); IP hash hashes addresses, which OVS does only with LACP (balance-tcp), so over a
#: static port channel it is balance-slb too; the explicit failover order keeps one member active.
BOND_MODES = {LoadBalancing.PORT_ID: "balance-slb", LoadBalancing.MAC_HASH: "balance-slb",
              LoadBalancing.LOAD_BASED: "balance-slb", LoadBalancing.IP_HASH: "balance-slb",
              LoadBalancing.FAILOVER_ORDER: "active-backup"}


def bondable(sw: Any) -> bool:
    """Whether the KVM backend realises ``sw`` on Open vSwitch, where it can bond uplinks."""
    return sw.kind is SwitchKind.OVS or filters_vlans(sw)


def filtering_port(vlans: BridgeVlans | None, who: str) -> tuple[dict[str, Any] | None, str]:
    """A VLAN-filtering bridge port's VLANs (``bridge vlan``) as libvirt's ``<vlan>`` on an OVS port:
    {"tags", "trunk", "native", "native_mode"}, or why OVS cannot hold them (``who`` names the port)."""
    vlans = vlans or BridgeVlans()
    carried = sorted({v for lo, hi in vlans.vlans.ranges for v in range(lo, hi + 1)})
    if not carried:
        return None, f"{who} carries no VLAN"
    pvid = vlans.pvid if vlans.pvid in carried else None
    untagged = [v for v in carried if vlans.untagged.valid and vlans.untagged.carries(v)]
    extra = [v for v in untagged if v != pvid]
    if extra:
        return None, (f"{who} sends VLAN {', '.join(map(str, extra))} untagged besides its PVID; the KVM backend "
                      "builds VLAN-filtering bridges on Open vSwitch, whose ports send only their PVID untagged")
    mode = None if pvid is None else "untagged" if pvid in untagged else "tagged"
    return {"tags": carried, "trunk": True, "native": pvid, "native_mode": mode}, ""


class FabricParts:
    """Mixed into the KVM desired-state builder (``desired._Builder``): its VLAN-filtering bridges and bonds."""

    # (set by the builder)
    d: Any
    ix: Any
    fabric: Any
    tag: str
    emulate: bool
    reasons: list[str]
    wants: dict[str, Want]
    wires: dict[str, list[dict[str, Any]]]
    wire_deps: dict[str, set[str]]
    switch_keys: dict[str, str]
    used_vlans: dict[str, set[int | None]]
    segment_nics: dict[tuple[str, int | None], list[tuple[VM, VNic, Place]]]
    segment_ports: dict[tuple[str, int | None], str]       # (switch, VLAN) -> the bridge port it leaves by

    if TYPE_CHECKING:          # the builder's own methods
        def add(self, want: Want) -> None: ...
        def wire_out(self, sw: Any, wire: Wire | None, attach: dict[str, Any],
                     hairpin: bool = False) -> tuple[str, str] | None: ...

    # --- VLAN-filtering Linux bridges ------------------------------------------------------------------

    def filtering_groups(self, sw: Any) -> list[dict[str, Any]]:
        """The libvirt portgroups of a VLAN-filtering bridge: one per distinct guest port VLAN configuration."""
        groups: dict[str, dict[str, Any]] = {}
        for vm in self.d.vms:
            for nic in vm.vnics:
                if nic.network != sw.id:
                    continue
                port, problem = filtering_port(nic.bridge_vlans, f"{vm.name}/{nic.name}'s port on {sw.name}")
                if port is None:
                    self.reasons.append(problem)
                    continue
                name = self.filtering_group(port)
                groups[name] = {"name": name, **port}
        return [groups[k] for k in sorted(groups)]

    @staticmethod
    def filtering_group(port: dict[str, Any]) -> str:
        """The libvirt portgroup name of one port VLAN configuration (the same configuration, the same group)."""
        return "bv-" + digest(port["tags"], port["native"], port["native_mode"])[:8]

    def filtering_nic_group(self, vm: VM, nic: VNic) -> str | None:
        """The libvirt portgroup of a vNIC's port on a VLAN-filtering bridge (None: refused, with the reason)."""
        port, _ = filtering_port(nic.bridge_vlans, f"{vm.name}/{nic.name}")
        return self.filtering_group(port) if port is not None else None

    # --- bonds -------------------------------------------------------------------------------------------

    def segment_out(self, sw: Any, vlan: int | None, attach: dict[str, Any]) -> str | None:
        """Plan how the segment of ``sw`` in ``vlan`` leaves the host: one uplink's wire, or a bond of several.
        Returns a pNIC id whose want the switch's uplink wiring depends on (None: it stays inside)."""
        default = self.fabric.wire(sw, sw.host, vlan)
        choices = [self.fabric.vnic_uplinks(vm, nic, place) for vm, nic, place in
                   self.segment_nics.get((sw.id, vlan), []) if self.fabric.may_choose_uplink(vm, nic, place)]
        members: list[str] = []
        if default is not None and default.pnic is not None and len(choices) < len(
                self.segment_nics.get((sw.id, vlan), [])):
            members.append(default.pnic)               # vNICs that keep the failover order's uplink
        for choice in choices:
            members += [u.pnic for u in choice.uplinks if u.pnic not in members]
        if len(members) == 1 and self.emulate and bondable(sw) and self.explicit_failover(sw, vlan):
            members += self.standbys(sw, vlan, members[0])
        if len(members) < 2:
            wire = default if not members or default is not None and default.pnic == members[0] else \
                self.fabric.uplink_wire(sw, vlan, members[0])
            out = self.wire_out(sw, wire, attach)
            if out:
                self.segment_ports[(sw.id, vlan)] = out[1]
            return out[0] if out else None
        self.bond(sw, vlan, members, choices, attach)
        return None

    def explicit_failover(self, sw: Any, vlan: int | None) -> bool:
        """Whether the design sets the explicit failover order for this segment (not merely implies it)."""
        groups = [place.portgroup for _, _, place in self.segment_nics.get((sw.id, vlan), []) if place.portgroup]
        pg = self.ix.get(groups[0]) if groups else None
        explicit = pg.teaming if pg is not None and pg.teaming is not None else sw.teaming
        return explicit is not None and explicit.load_balancing is LoadBalancing.FAILOVER_ORDER and not explicit.lag

    def standbys(self, sw: Any, vlan: int | None, active: str) -> list[str]:
        """The other working uplinks of the failover order that land where ``active`` does: an active-backup
        bond's backups (one that leads elsewhere stays out, so the bond never changes an answer)."""
        lands = self.landing(self.fabric.uplink_wire(sw, vlan, active))
        return [up.pnic for up in sorted(self.fabric.uplinks_of(sw, sw.host, vlan), key=lambda u: u.standby)
                if up.pnic != active and self.fabric.uplink_problem(up) is None
                and lands is not None and self.landing(self.fabric.uplink_wire(sw, vlan, up.pnic)) == lands]

    def landing(self, wire: Wire | None) -> tuple[str, int] | None:
        """(physical switch id, physical VLAN) a wire's frames join, or None when they join none."""
        if wire is None or wire.port is None or wire.vlan is None:
            return None
        return self.fabric.port_switch[wire.port.id].id, wire.vlan

    def bond(self, sw: Any, vlan: int | None, members: list[str], choices: list[UplinkChoice],
             attach: dict[str, Any]) -> None:
        """An OVS bond of ``members`` for the segment, or the reason the KVM backend does not build it."""
        where = f"{sw.name}" + (f" VLAN {vlan}" if vlan is not None else "")
        names = ", ".join(self.fabric.pnic_label(p) for p in members)
        if not bondable(sw):
            self.reasons.append(f"{where} leaves through several uplinks ({names}); the KVM backend bonds uplinks "
                                "on Open vSwitch only (a Linux bridge would need the bonding driver); make it an "
                                "OVS switch, pin the vNICs or use the explicit failover order")
            return
        wires = [self.fabric.uplink_wire(sw, vlan, p) for p in members]
        lands = {self.landing(w) for w in wires}
        if len(lands) != 1 or None in lands:
            self.reasons.append(f"{where} leaves through {names}, which lead to different networks; which one a "
                                "vNIC or flow takes decides what it reaches, and a KVM bond does not choose as the "
                                "platform does; pin the vNICs, or use the explicit failover order")
            return
        mode, lacp, problem = self.bond_mode(sw, vlan, members, choices, partner=False)
        if problem:
            self.reasons.append(f"{where}: {problem}")
            return
        outs = [self.wire_out(sw, w, {"kind": "none"}) for w in wires]
        if any(o is None for o in outs):
            return
        ovs_bridge = attach["bridge"]
        name = ifname("k", self.tag, sw.id, vlan)
        spec = {"bridge": ovs_bridge, "name": name, "members": [o[1] for o in outs if o], "tag": attach.get("tag"),
                "mode": mode, "lacp": lacp}
        deps = tuple(sorted({self.switch_keys[sw.id], *(f"pnic/{ifname('i', self.tag, p)}" for p in members)}))
        self.add(Want("bond", f"bond/{name}", spec, f"bond {name} on {sw.name} ({mode}: {names})", sw.id, deps,
                      host=sw.host))
        self.segment_ports[(sw.id, vlan)] = name

    def bond_mode(self, sw: Any, vlan: int | None, pnics: list[str], choices: list[UplinkChoice],
                  partner: bool) -> tuple[str, str, str]:
        """(OVS bond mode, lacp setting, why it cannot be built) for a bond of ``pnics``; ``partner``: whether
        a real switch answers LACP (``pnics=real``)."""
        lag = next((c.lag for c in choices if c.lag is not None), None)
        lacp = lag.mode if lag is not None else self.port_channel_mode(pnics)
        if lacp in (LacpMode.ACTIVE, LacpMode.PASSIVE):
            return "balance-tcp", lacp.value, "" if partner else (
                "its uplinks negotiate LACP, which needs a partner, and the emulated physical switch has none (no "
                "bonding driver in its namespace); use a static port channel, or deploy with pnics=real")
        if lag is not None:
            return "balance-slb", "off", ""
        spreading = any(c.chooser in (UplinkChooser.RUN_TIME, UplinkChooser.ADDRESS_HASH) for c in choices)
        groups = [place.portgroup for _, _, place in self.segment_nics.get((sw.id, vlan), []) if place.portgroup]
        policy = teaming_policy(sw, self.ix.get(groups[0]) if groups else None).load_balancing if spreading else \
            LoadBalancing.FAILOVER_ORDER
        return BOND_MODES[policy], "off", ""

    # --- pnics=real: the host's own pNICs -----------------------------------------------------------------

    def real_uplink(self, sw: Any, bridge: str) -> None:
        """With ``pnics=real``, an OVS-realised switch's uplink: the failover order's active pNIC, or a bond of
        the pNICs the policy spreads over (a LAG's members, the working active uplinks; the explicit order's
        backups that land where the active one does), as one OVS port trunking the switch's VLANs: those of
        its segments, or a VLAN-filtering bridge's uplink ``bridge_vlans``."""
        order = self.fabric.uplinks_of(sw, sw.host, None)
        policy = teaming_policy(sw)
        lag = self.fabric.lag_of(sw, policy)
        if lag is not None:
            order = [next((u for u in sw.uplinks if u.pnic == p), Uplink(p)) for p in lag.pnics
                     if self.fabric.host_of_pnic.get(p) == sw.host]
        working, _ = self.fabric.working_uplinks(order)
        active, _ = self.fabric.active_uplink(order)
        spreading = lag is not None or policy.load_balancing is not LoadBalancing.FAILOVER_ORDER
        if not spreading:
            working = [active] if active is not None else []
            if active is not None and sw.teaming is not None:
                working += self.real_backups(sw, order, active)
        if not working:
            return
        vlans = self.real_vlans(sw, working)
        if vlans is None:
            return
        names = [self.ix.get(u.pnic).name for u in working]
        if len(working) == 1:
            self.wires.setdefault(working[0].pnic, []).append(
                {"dev": names[0], "host_if": names[0], "real": True,
                 "attach": {"kind": "ovs", "bridge": bridge, "vlan": vlans}})
            self.wire_deps.setdefault(working[0].pnic, set()).add(self.switch_keys[sw.id])
            return
        apart = [v for v in sorted(self.used_vlans.get(sw.id, set()), key=lambda v: v or 0)
                 if len({self.landing(self.fabric.uplink_wire(sw, v, u.pnic)) for u in working}) > 1]
        if spreading and apart:
            self.reasons.append(f"{sw.name} spreads VLAN {apart[0] or 'untagged'} over {', '.join(names)}, which "
                                "lead to different networks; which one a vNIC or flow takes decides what it "
                                "reaches, and a KVM bond does not choose as the platform does; pin the vNICs, or "
                                "use the explicit failover order")
            return
        choice = UplinkChoice(tuple(working), UplinkChooser.RUN_TIME if spreading else UplinkChooser.ORDER, lag=lag)
        mode, lacp, _ = self.bond_mode(sw, None, [u.pnic for u in working], [choice], partner=True)
        for u, name in zip(working, names):
            self.wires.setdefault(u.pnic, []).append({"dev": name, "host_if": name, "real": True,
                                                      "attach": {"kind": "none"}})
        name = ifname("k", self.tag, sw.id)
        spec = {"bridge": bridge, "name": name, "members": names, "tag": None, "vlan": vlans, "mode": mode,
                "lacp": lacp}
        deps = tuple(sorted({self.switch_keys[sw.id], *(f"pnic/{ifname('i', self.tag, u.pnic)}" for u in working)}))
        self.add(Want("bond", f"bond/{name}", spec, f"bond {name} on {sw.name} ({mode}: {', '.join(names)})",
                      sw.id, deps, host=sw.host))

    def real_backups(self, sw: Any, order: list[Any], active: Any) -> list[Any]:
        """The explicit failover order's working backups that land where ``active`` does in every VLAN the
        switch uses (so the active-backup bond never changes an answer)."""
        vlans = self.used_vlans.get(sw.id, set()) or {None}
        return [u for u in sorted(order, key=lambda u: u.standby)
                if u.pnic != active.pnic and self.fabric.uplink_problem(u) is None
                and all(self.landing(self.fabric.uplink_wire(sw, v, u.pnic)) ==
                        self.landing(self.fabric.uplink_wire(sw, v, active.pnic)) is not None for v in vlans)]

    def real_vlans(self, sw: Any, uplinks: list[Any]) -> dict[str, Any] | None:
        """The VLANs the real uplink port carries, as ``filtering_port`` gives them, or None (with the reason)."""
        if filters_vlans(sw):
            ports = {str(filtering_port(u.bridge_vlans, "")[0]) for u in uplinks}
            if len(ports) > 1:
                self.reasons.append(f"{sw.name}'s bonded uplinks have different bridge VLANs; a bond is one port")
                return None
            port, problem = filtering_port(uplinks[0].bridge_vlans, f"{sw.name}'s port for "
                                                                   f"{self.ix.get(uplinks[0].pnic).name}")
            if port is None:
                self.reasons.append(problem)
            return port
        used = self.used_vlans.get(sw.id, set())
        if not used:
            return None                               # no segment: nothing leaves through the uplink
        return {"tags": sorted(v or 0 for v in used), "trunk": True, "native": None, "native_mode": None}

    def port_channel_mode(self, pnics: list[str]) -> LacpMode | None:
        """How the port channel that holds the members' switch ports negotiates (None: no port channel)."""
        ports = {port.id for p in pnics if (port := self.fabric.port_of(p)) is not None}
        for ps in self.d.physical_switches:
            for pc in ps.port_channels:
                if ports & set(pc.ports):
                    return pc.mode
        return None
