"""What is wrong with a design's teaming, link aggregation and private VLANs (the lints of issue 23).

Each finding names its place in the file and the fix, like the rest of validation (``validate`` calls
``teaming_problems`` once). The facts come from ``forwarding``; nothing here decides a verdict:

- active uplinks whose switch ports do not carry the same VLANs (the platform puts some vNICs on the uplink
  that drops their VLAN: "half my VMs lost the network");
- IP hash without a port channel on the physical side, and a port channel whose host does not use IP hash or
  a LAG (the switch sees the VMs' MACs move between ports: MAC flapping);
- a port channel or LAG whose members land on different physical switches that form no stack or MLAG;
- beacon probing with fewer than three uplinks (with two, a lost beacon cannot say which uplink failed);
- link-status-only detection where an upstream failure goes unseen (the uplink's own link stays up).

The uplink lints apply where a switch or portgroup states a teaming policy: a design without one means the
explicit failover order it always meant, and keeps the findings it had.
"""

from __future__ import annotations

from .forwarding import TAGGING_SWITCHES, Fabric, ingress, teaming_policy
from .objects import FailureDetection, LoadBalancing, PhysicalSwitch, Port, Switch, Topology, Uplink
from .problems import ERROR, WARNING, Problem
from .vlan import VlanMode


def teaming_problems(topology: Topology, fabric: Fabric) -> list[Problem]:
    """Every teaming, LAG and port channel problem of ``topology``, in file order."""
    out: list[Problem] = []
    channel_of = {port: (ps, ch) for ps in topology.physical_switches for ch in ps.port_channels for port in ch.ports}
    for i, sw in enumerate(topology.switches):
        path = f"switches[{i}]"
        for host in fabric.switch_hosts(sw):
            team = [u for u in fabric.teaming(sw, host, None) if not u.standby] if sw.uplinks else []
            ports = [(u.pnic, port) for u in team if (port := fabric.port_of(u.pnic)) is not None]
            policies = [teaming_policy(sw)] + [pg.teaming for pg in sw.portgroups if pg.teaming is not None]
            stated = sw.teaming is not None or len(policies) > 1   # a design without a policy keeps its old lints
            if stated:
                out += _vlan_mismatch(fabric, sw, path, host, ports)
            uses_ip_hash = any(p.load_balancing is LoadBalancing.IP_HASH for p in policies)
            if uses_ip_hash:
                out += _ip_hash_channel(fabric, sw, path, host, ports, channel_of)
            uses_lag = any(p.lag for p in policies)
            if not uses_ip_hash and not uses_lag:
                out += _channel_without_ip_hash(fabric, sw, path, host, ports, channel_of)
            detection = {p.failure_detection for p in policies} if stated else set()
            all_uplinks = fabric.teaming(sw, host, None)
            if FailureDetection.BEACON in detection and 0 < len(all_uplinks) < 3:
                out.append(Problem(WARNING, f"{path}.teaming.failure_detection", sw.id,
                                   f"{sw.name} on {fabric.name_of(host)} probes with beacons over "
                                   f"{len(all_uplinks)} uplink(s): with fewer than three, a lost beacon cannot "
                                   f"tell which uplink failed, so the host may shut the wrong one",
                                   "add a third uplink, or detect failures by link status"))
            if FailureDetection.LINK_STATUS in detection and len(all_uplinks) > 1:
                out += _unseen_upstream(topology, fabric, sw, path, host, all_uplinks)
        for j, lag in enumerate(sw.lags):
            out += _spread(fabric, f"{path}.lags[{j}]", sw.id, f"LAG {lag.name} of {sw.name}",
                           [fabric.port_of(p) for p in lag.pnics])
    for i, ps in enumerate(topology.physical_switches):
        for j, ch in enumerate(ps.port_channels):
            out += _spread(fabric, f"physical_switches[{i}].port_channels[{j}]", ch.id,
                           f"port channel {ch.name} of {ps.name}", [fabric.port.get(p) for p in ch.ports])
    return out


def _vlans_used(sw: Switch) -> list[int]:
    """The VLANs a tagging switch's portgroups send out (access portgroups; trunks are the guests' choice)."""
    if sw.kind not in TAGGING_SWITCHES:
        return []
    return sorted({pg.vlan.tag for pg in sw.portgroups if pg.vlan.mode is VlanMode.ACCESS and pg.vlan.tag is not None}
                  | {pg.pvlan for pg in sw.portgroups if pg.pvlan is not None})


def _vlan_mismatch(fabric: Fabric, sw: Switch, path: str, host: str, ports: list[tuple[str, Port]]) -> list[Problem]:
    """Active uplinks whose ports do not carry the same VLANs of the switch."""
    out: list[Problem] = []
    if len(ports) < 2:
        return out
    for vlan in _vlans_used(sw):
        carried = [(pnic, port) for pnic, port in ports if port.up and ingress(port, vlan) is not None]
        if carried and len(carried) < len(ports):
            dropped = [(pnic, port) for pnic, port in ports if (pnic, port) not in carried]
            names = ", ".join(f"{fabric.pnic_label(p)} ({fabric.port_label(port)})" for p, port in dropped)
            out.append(Problem(WARNING, f"{path}.uplinks", sw.id,
                               f"the active uplinks of {sw.name} on {fabric.name_of(host)} do not carry the same "
                               f"VLANs: VLAN {vlan} passes {fabric.pnic_label(carried[0][0])} but not {names}, so "
                               f"the VMs the platform puts on those uplinks lose VLAN {vlan}",
                               f"allow VLAN {vlan} on those switch ports, make those uplinks standby, or pin the "
                               f"VMs to an uplink that carries it"))
    return out


def _ip_hash_channel(fabric: Fabric, sw: Switch, path: str, host: str, ports: list[tuple[str, Port]],
                     channel_of: dict) -> list[Problem]:
    """IP hash needs every active uplink's port in one static port channel."""
    channels = {channel_of[port.id][1].id if port.id in channel_of else None for _, port in ports}
    if len(ports) > 1 and (None in channels or len(channels) > 1):
        return [Problem(ERROR, f"{path}.teaming.load_balancing", sw.id,
                        f"{sw.name} on {fabric.name_of(host)} balances by IP hash, but its uplinks' switch ports "
                        f"are not one port channel: the physical switch sees each VM's MAC on several ports "
                        f"(MAC flapping) and sends replies to the wrong uplink",
                        "bundle the uplinks' ports into one static port channel (EtherChannel mode on), or "
                        "route based on originating virtual port")]
    return []


def _channel_without_ip_hash(fabric: Fabric, sw: Switch, path: str, host: str, ports: list[tuple[str, Port]],
                             channel_of: dict) -> list[Problem]:
    """A port channel towards a host that does not balance by IP hash (or a LAG) flaps the VMs' MACs."""
    out = []
    for _, port in ports:
        if port.id in channel_of:
            ps, ch = channel_of[port.id]
            out.append(Problem(WARNING, f"{path}.teaming", sw.id,
                               f"{fabric.port_label(port)} is in port channel {ch.name} of {ps.name}, but {sw.name} "
                               f"on {fabric.name_of(host)} does not balance by IP hash or use a LAG: the channel "
                               f"hashes replies onto uplinks the vSwitch did not send from (MAC flapping)",
                               "set the switch's load balancing to ip-hash, or remove the port channel"))
            break
    return out


def _spread(fabric: Fabric, path: str, obj_id: str, what: str, ports: list[Port | None]) -> list[Problem]:
    """Members on different physical switches need those switches in one stack or MLAG domain."""
    switches = {fabric.port_switch[p.id].id: fabric.port_switch[p.id] for p in ports if p is not None}
    stacks = {ps.stack for ps in switches.values()}
    if len(switches) > 1 and (None in stacks or len(stacks) > 1):
        names = ", ".join(sorted(ps.name for ps in switches.values()))
        return [Problem(ERROR, path, obj_id, f"the members of {what} land on different switches ({names}) that form "
                        f"no stack or MLAG domain, so the channel cannot come up across them",
                        "cable every member to one switch, or put the switches in one stack (set the same stack on "
                        "each)")]
    return []


def _unseen_upstream(topology: Topology, fabric: Fabric, sw: Switch, path: str, host: str, uplinks: list) -> list[Problem]:
    """Link status only sees the uplink's own cable: when an uplink's switch reaches the others' switches only
    through one cable (or a port that is down), a failure there leaves the uplink up and its traffic lost."""
    landing: dict[str, tuple[PhysicalSwitch, Uplink]] = {}
    for up in uplinks:
        port = fabric.port_of(up.pnic)
        if port is not None:
            landing.setdefault(fabric.port_switch[port.id].id, (fabric.port_switch[port.id], up))
    if len(landing) < 2:
        return []
    out = []
    for ps_id, (ps, up) in landing.items():
        cables = [port for port in ps.ports if any(peer in fabric.port and fabric.port_switch[peer].id != ps_id
                                                    for peer in fabric.peers.get(port.id, ()))]
        working = [port for port in cables if port.up]
        if len(working) < 2:
            why = (f"its only cable towards the other switches, {fabric.port_label(working[0])}" if working else
                   "no working cable towards the other switches")
            out.append(Problem(WARNING, f"{path}.teaming.failure_detection", sw.id,
                               f"{sw.name} on {fabric.name_of(host)} detects failures by link status only, and "
                               f"{fabric.pnic_label(up.pnic)} lands on {ps.name}, which has {why}: an upstream "
                               f"failure there leaves the uplink's link up, so its traffic is lost unseen",
                               "use beacon probing (three uplinks or more), or give that switch a second uplink "
                               "towards the others (or a stack)"))
    return out
