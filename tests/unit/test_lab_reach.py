"""The lab wires pins and private VLANs as the prediction answers them: on random designs with teaming policies,
pinned vNICs and private VLANs, the vNIC pairs whose frames reach each other both ways in the lab's desired
state are exactly the pairs the prediction joins at layer 2 (``decide.segment_l2``).

The lab side is read from the resources alone, as the kernel will forward a broadcast: from the sender's veth,
through every bridge port but the one it came in on (unless that port has hairpin; never from an isolated port
to another isolated one), across veths and VXLAN tunnels, and past the hypervisors' nftables bridge rules that
match ports (``iifname``/``oifname``) or a sender's MAC. A pair without an answer from the lab (a refused
design) is not compared; the test asserts that enough designs are built.
"""

from __future__ import annotations

import random
import re
from collections import deque

import pytest
from random_designs import _private_vlans, random_design
from test_lab_domains import _Union

from vnetbench.model import Index, Topology
from vnetbench.model.forwarding import Fabric, UplinkChooser
from vnetbench.predict import decide
from vnetbench.predict.network import Network
from vnetbench_local.desired import DesiredLab, desired_lab
from vnetbench_local.names import ifname

_SET = r'(?:\{ ([^}]*) \}|"([^"]+)")'
_RULE = re.compile(rf'^iifname {_SET}(?: oifname (!= )?{_SET})?(?: ether saddr \{{ ([^}}]*) \}})? drop')


def _names(group: tuple[str | None, str | None]) -> set[str]:
    listed, one = group
    return {n.strip().strip('"') for n in listed.split(",")} if listed else {one} if one else set()


def _rules(lab: DesiredLab) -> dict[str, list[tuple[set[str], set[str] | None, bool, set[str] | None]]]:
    """ns -> (in ports, out ports or None for any, whether the out ports are the ones allowed, MACs or None)."""
    out: dict[str, list] = {}
    for res in lab.resources.values():
        if res.kind != "nft" or res.spec["family"] != "bridge":
            continue
        for line in res.spec["text"].splitlines():
            m = _RULE.match(line.strip())
            if m:
                ins, neg = _names(m.group(1, 2)), bool(m.group(3))
                outs = _names(m.group(4, 5)) if m.group(4) or m.group(5) else None
                macs = {x.strip() for x in m.group(6).split(",")} if m.group(6) else None
                out.setdefault(res.spec["ns"], []).append((ins, outs, neg, macs))
    return out


def lab_reaches(lab: DesiredLab, design: Topology) -> dict[tuple[str, str], bool]:
    """(vNIC a, vNIC b) -> whether a broadcast from a reaches b in the lab's desired state."""
    veths = [r.spec for r in lab.resources.values() if r.kind == "veth"]
    ports: dict[tuple[str, str], list[dict]] = {}                 # (ns, bridge) -> its port ends
    peer: dict[tuple[str, str], dict] = {}                        # (ns, end name) -> the other end
    for v in veths:
        for end, other in ((v["a"], v["b"]), (v["b"], v["a"])):
            peer[(end["ns"], end["name"])] = other
            if end["master"]:
                ports.setdefault((end["ns"], end["master"]), []).append(end)
    tunnels = [r.spec for r in lab.resources.values() if r.kind == "vxlan"]
    for t in tunnels:                 # a tunnel: a port of its bridge joined to the same VNI's other tunnels
        ports.setdefault((t["ns"], t["master"]), []).append({"ns": t["ns"], "name": t["name"], "master": t["master"],
                                                             "isolated": False, "hairpin": False, "vni": t["vni"]})
    underlay = _Union()              # a tunnel reaches another where their endpoints' bridges are joined
    for v in veths:
        if v["a"]["master"] and v["b"]["master"]:
            underlay.join((v["a"]["ns"], v["a"]["master"]), (v["b"]["ns"], v["b"]["master"]))
    endpoint = {addr.split("/")[0]: (r.spec["ns"], r.spec["name"]) for r in lab.resources.values()
                if r.kind == "bridge" for addr in r.spec["addrs"]}
    by_vni: dict[int, list[dict]] = {}
    for t in tunnels:
        by_vni.setdefault(t["vni"], []).append(t)

    def tunnel_peers(port: dict) -> list[dict]:
        mine = next(t for t in by_vni[port["vni"]] if (t["ns"], t["name"]) == (port["ns"], port["name"]))
        return [t for t in by_vni[port["vni"]] if t is not mine and t["local"] in mine["remotes"]
                and underlay.find(endpoint[t["local"]]) == underlay.find(endpoint[mine["local"]])]
    rules = _rules(lab)

    def dropped(ns: str, into: str, out: str, mac: str) -> bool:
        for ins, outs, allowed, macs in rules.get(ns, []):
            if into not in ins or (macs is not None and mac not in macs):
                continue
            if outs is None or (out not in outs if allowed else out in outs):
                return True
        return False

    def reached(start: dict) -> set[tuple[str, str]]:
        mac = (start.get("mac") or "").lower()
        seen: set[tuple[str, str, str]] = set()
        ends: set[tuple[str, str]] = set()
        queue = deque([peer[(start["ns"], start["name"])]])
        while queue:
            end = queue.popleft()
            ends.add((end["ns"], end["name"]))
            if not end["master"] or (end["ns"], end["master"], end["name"]) in seen:
                continue
            seen.add((end["ns"], end["master"], end["name"]))
            for port in ports.get((end["ns"], end["master"]), []):
                if port["name"] == end["name"] and not end.get("hairpin"):
                    continue
                if end.get("isolated") and port.get("isolated"):
                    continue
                if dropped(end["ns"], end["name"], port["name"], mac):
                    continue
                if "vni" in port:
                    queue.extend({**t, "isolated": False, "hairpin": False} for t in tunnel_peers(port))
                    continue
                queue.append(peer[(port["ns"], port["name"])])
        return ends

    guest = {}
    for v in veths:
        name = v["b"]["name"]
        for vm in design.vms:
            for nic in vm.vnics:
                if name == ifname("n", nic.id) and not v["a"]["master"]:    # (not a bridged firewall's leg)
                    guest[nic.id] = v["a"]
    out = {}
    for a, start in guest.items():
        if not start.get("up", True):
            continue
        hit = reached(start)
        for b, end in guest.items():
            if a != b:
                out[(a, b)] = (end["ns"], end["name"]) in hit
    return out


def predicted_l2(design: Topology) -> dict[tuple[str, str], bool]:
    """(vNIC a, vNIC b) -> whether the prediction joins their segments at layer 2."""
    net = Network(design)
    segs = {nic.id: net.segments[p.segment] for vm in design.vms for nic, p in zip(vm.vnics, net.points[vm.id])
            if p.segment is not None}
    return {(a, b): decide.segment_l2(sa, sb) > decide.NO_L2 for a, sa in segs.items() for b, sb in segs.items()
            if a != b}


def _compare(design: Topology) -> tuple[bool, bool]:
    """Whether the lab builds ``design`` and filters ports in it (pins, private VLANs); asserts it agrees."""
    lab = desired_lab(design)
    if lab.reasons:
        return False, False
    reach, predicted = lab_reaches(lab, design), predicted_l2(design)
    both = {pair: reach[pair] and reach[pair[::-1]] for pair in predicted if pair in reach and pair[::-1] in reach}
    wrong = {pair: (both[pair], predicted[pair]) for pair in both if both[pair] != predicted[pair]}
    assert wrong == {}, wrong
    return True, any(_rules(lab).values())


def _pinned(seed: int) -> Topology:
    """``random_design(seed)`` with half the switches' standby uplinks made active, and each vNIC whose uplink the
    platform would choose, and half the others on a switch with several working uplinks, pinned to one of them
    (the lab wires pins; it refuses a run-time choice)."""
    d = random_design(seed).t
    rnd = random.Random(seed + 5000)
    for sw in d.switches:
        if len(sw.uplinks) > 1 and rnd.random() < 0.5:
            for up in sw.uplinks:
                up.standby = False
    fabric = Fabric(d, Index(d))
    turn: dict = {}
    for vm in d.vms:
        for nic in vm.vnics:
            key = fabric.place(vm, nic).segment
            if key is None or key.guest is not None or key.switch not in fabric.switch:
                continue
            ups = fabric.working_uplinks(fabric.uplinks_of(fabric.switch[key.switch], key.host, key.vlan))[0]
            if len(ups) > 1 and (rnd.random() < 0.5 or fabric.vnic_uplinks(vm, nic).chooser in
                                 (UplinkChooser.RUN_TIME, UplinkChooser.ADDRESS_HASH)):
                turn[key] = turn.get(key, rnd.randrange(len(ups))) + 1     # one VLAN's vNICs: every uplink in turn
                nic.uplink = ups[turn[key] % len(ups)].pnic
    return d


def _with_pvlans(seed: int) -> Topology:
    d = random_design(seed, teaming=False)
    _private_vlans(d, random.Random(seed + 9000))
    return d.t


@pytest.mark.parametrize("make", [_pinned, _with_pvlans], ids=["pins", "private-vlans"])
def test_the_labs_reach_is_the_predictions_with_pins_and_private_vlans(make):
    built, filtered = (sum(counts) for counts in zip(*(_compare(make(seed)) for seed in range(60))))
    assert built >= 20 and filtered >= 5, (built, filtered)
