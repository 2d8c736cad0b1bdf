"""What is wrong with a design's private VLANs (forwarding-rules.md, "Teaming": "Private VLANs").

Errors where vSphere would refuse the design: a private VLAN map on anything but a vDS or an Open vSwitch (which
has no private VLANs of its own: admins build them from OpenFlow rules, as the KVM backend does), a primary without its
promiscuous entry, two isolated secondaries of one primary, a VLAN listed twice, a portgroup naming a
secondary the map lacks, a plain portgroup using a VLAN of the map. Warnings where traffic is lost: an uplink
(of a vDS, or of an Open vSwitch whose private VLAN another host's switch holds too) whose switch port does not
carry a VLAN of a private VLAN in use (frames of that role never leave the host: the port is named), and a
physical switch, or another virtual switch, whose own map gives a VLAN another role.
"""

from __future__ import annotations

from .forwarding import PVLAN_SWITCHES, Fabric, ingress, pvlan_entry, pvlan_role_words, pvlan_vlans
from .objects import PvlanType, Switch, Topology
from .problems import ERROR, WARNING, Problem
from .vlan import VlanMode


def pvlan_problems(topology: Topology, fabric: Fabric) -> list[Problem]:
    """Every private VLAN problem of ``topology``, in file order."""
    out: list[Problem] = []
    for i, sw in enumerate(topology.switches):
        path = f"switches[{i}]"
        used = [pg for pg in sw.portgroups if pg.pvlan is not None]
        if sw.kind not in PVLAN_SWITCHES:
            if sw.pvlans or used:
                out.append(Problem(ERROR, f"{path}.pvlans", sw.id,
                                   f"{sw.name} is a {sw.kind.value}, and only a vDS or an Open vSwitch holds "
                                   "private VLANs", "move the private VLAN map and its portgroups to a vDS or "
                                   "an Open vSwitch"))
            continue
        out += _map_problems(sw, path)
        secondaries = {e.secondary for e in sw.pvlans}
        for j, pg in enumerate(sw.portgroups):
            if pg.pvlan is not None and pg.pvlan not in secondaries:
                out.append(Problem(ERROR, f"{path}.portgroups[{j}].pvlan", pg.id,
                                   f"portgroup {pg.name} names private VLAN {pg.pvlan}, which the map of {sw.name} "
                                   f"does not hold", f"add VLAN {pg.pvlan} to the map, or name one of "
                                   f"{', '.join(map(str, sorted(secondaries))) or 'its VLANs'}"))
            elif pg.pvlan is None and pg.vlan.mode is VlanMode.ACCESS and pg.vlan.tag in secondaries:
                out.append(Problem(ERROR, f"{path}.portgroups[{j}].vlan", pg.id,
                                   f"portgroup {pg.name} uses VLAN {pg.vlan.tag}, which is a private VLAN of "
                                   f"{sw.name}: the switch does not take it as a plain VLAN",
                                   f"set the portgroup's pvlan to {pg.vlan.tag}, or choose another VLAN"))
        out += _uplink_carry(topology, fabric, sw, path)
    out += _physical_maps(topology)
    out += _virtual_maps(topology)
    return out


def _map_problems(sw: Switch, path: str) -> list[Problem]:
    """A map vSphere refuses: a VLAN listed twice, a primary without promiscuous entry, two isolated ones."""
    out: list[Problem] = []
    seen: set[int] = set()
    for k, e in enumerate(sw.pvlans):
        if e.secondary in seen:
            out.append(Problem(ERROR, f"{path}.pvlans[{k}]", sw.id,
                               f"the private VLAN map of {sw.name} lists VLAN {e.secondary} twice",
                               "keep one entry per secondary VLAN"))
        seen.add(e.secondary)
        if (e.type is PvlanType.PROMISCUOUS) != (e.secondary == e.primary):
            out.append(Problem(ERROR, f"{path}.pvlans[{k}].type", sw.id,
                               f"the private VLAN map of {sw.name} gives VLAN {e.secondary} of primary {e.primary} "
                               f"the type {e.type.value}: the primary itself is the promiscuous one, and only it",
                               "make the entry whose secondary equals its primary promiscuous, and the others "
                               "isolated or community"))
    for primary in sorted({e.primary for e in sw.pvlans}):
        if pvlan_entry(sw.pvlans, primary) is None:
            out.append(Problem(ERROR, f"{path}.pvlans", sw.id,
                               f"private VLAN {primary} of {sw.name} has no promiscuous entry (primary {primary}, "
                               f"secondary {primary})", f"add the entry {primary}/{primary} promiscuous"))
        isolated = [e.secondary for e in sw.pvlans if e.primary == primary and e.type is PvlanType.ISOLATED]
        if len(isolated) > 1:
            out.append(Problem(ERROR, f"{path}.pvlans", sw.id,
                               f"private VLAN {primary} of {sw.name} has {len(isolated)} isolated secondaries "
                               f"({', '.join(map(str, isolated))}); a primary has at most one",
                               "keep one isolated secondary and make the others community VLANs"))
    return out


def _uplink_carry(topology: Topology, fabric: Fabric, sw: Switch, path: str) -> list[Problem]:
    """Each host's active uplinks must carry every VLAN of a private VLAN in use where its ports meet ports on
    another host (a vDS's other members, or another host's Open vSwitch holding the same primary): its ports
    send on their secondary and hear the primary. Name the port that drops one."""
    out: list[Problem] = []
    primaries = sorted({e.primary for pg in sw.portgroups if pg.pvlan is not None
                        and (e := pvlan_entry(sw.pvlans, pg.pvlan)) is not None})
    sharing = [other for other in topology.switches if other.kind in PVLAN_SWITCHES and other.id != sw.id
               and {e.primary for e in other.pvlans} & set(primaries)]
    spread = set(fabric.switch_hosts(sw)) | {h for other in sharing for h in fabric.switch_hosts(other)}
    if len(spread) < 2:
        return out
    for host in fabric.switch_hosts(sw):
        for up in fabric.teaming(sw, host, None):
            port = fabric.port_of(up.pnic)
            if up.standby or port is None or not port.up:
                continue
            for primary in primaries:
                dropped = [v for v in pvlan_vlans(sw.pvlans, primary) if ingress(port, v) is None]
                if not dropped:
                    continue
                roles = " nor ".join(pvlan_role_words(e) for v in dropped if (e := pvlan_entry(sw.pvlans, v)))
                out.append(Problem(WARNING, f"{path}.uplinks", sw.id,
                                   f"{fabric.port_label(port)}, where {fabric.pnic_label(up.pnic)} of {sw.name} "
                                   f"lands, does not carry the {roles}: frames on it never reach the ports of "
                                   f"private VLAN {primary} on other hosts",
                                   f"allow VLANs {', '.join(map(str, pvlan_vlans(sw.pvlans, primary)))} on that "
                                   f"port (and every trunk between the hosts)"))
    return out


def _virtual_maps(topology: Topology) -> list[Problem]:
    """Two virtual switches (an Open vSwitch per KVM host, say) sharing a private VLAN must give each of its
    VLANs one role, or the two hosts enforce different ones."""
    out: list[Problem] = []
    maps = [(i, sw) for i, sw in enumerate(topology.switches) if sw.kind in PVLAN_SWITCHES and sw.pvlans]
    for k, (i, sw) in enumerate(maps):
        for _, other in maps[:k]:
            for e in sw.pvlans:
                theirs = pvlan_entry(other.pvlans, e.secondary)
                if theirs is not None and (theirs.primary, theirs.type) != (e.primary, e.type):
                    out.append(Problem(WARNING, f"switches[{i}].pvlans", sw.id,
                                       f"{sw.name} holds VLAN {e.secondary} as {pvlan_role_words(e)}, but "
                                       f"{other.name} as {pvlan_role_words(theirs)}: the two switches enforce "
                                       "different roles", f"give {sw.name} and {other.name} one private VLAN map"))
    return out


def _physical_maps(topology: Topology) -> list[Problem]:
    """A physical switch that knows private VLANs must give each VLAN the role the virtual switch gives it."""
    out: list[Problem] = []
    for sw in topology.switches:
        if sw.kind not in PVLAN_SWITCHES:
            continue
        for i, ps in enumerate(topology.physical_switches):
            for e in ps.pvlans:
                mine = pvlan_entry(sw.pvlans, e.secondary)
                if mine is not None and (mine.primary, mine.type) != (e.primary, e.type):
                    out.append(Problem(WARNING, f"physical_switches[{i}].pvlans", ps.id,
                                       f"{ps.name} holds VLAN {e.secondary} as {pvlan_role_words(e)}, but {sw.name} "
                                       f"as {pvlan_role_words(mine)}: the two ends enforce different roles",
                                       f"give the physical switch and {sw.name} one private VLAN map"))
    return out
