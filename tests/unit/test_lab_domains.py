"""Drift between prediction and the local lab is impossible to miss: on random designs, the layer-2 domains the
lab would wire (its desired state: bridges joined by veths and VXLAN tunnels) are exactly the prediction's
segments joined by uplinks, trunks, tunnels and bridges, as a partition of the vNICs.

The lab side is read from the resources alone (no prediction code), the way the kernel will join them: a
veth joins the bridges its two ends are enslaved to; an isolated bridge port reaches only the bridge's
non-isolated ports (so it is part of the bridge's domain only when the bridge has one); a VXLAN device joins
the bridges of its VNI on the hosts whose tunnel endpoints' bridges are themselves joined.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from builders import Design, HostKind, MacvtapMode, SwitchKind
from random_designs import random_nat_design

from vnetbench.model import Topology
from vnetbench.predict.network import Network
from vnetbench_local.desired import DesiredLab, desired_lab
from vnetbench_local.names import ifname


class _Union:
    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, x):
        while self.parent.setdefault(x, x) != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a, b) -> None:
        self.parent[self.find(a)] = self.find(b)


def lab_domains(lab: DesiredLab, design: Topology) -> dict[str, object]:
    """vNIC id -> the lab's layer-2 domain of the bridge its veth is plugged into (None: plugged nowhere)."""
    veths = [r.spec for r in lab.resources.values() if r.kind == "veth"]
    open_ports = {(e["ns"], e["master"]) for v in veths for e in (v["a"], v["b"]) if e["master"] and not e["isolated"]}

    def bridge(end: dict):
        """The bridge this veth end joins at layer 2, or a domain of its own."""
        key = (end["ns"], end["master"])
        if end["master"] is None or (end["isolated"] and key not in open_ports):
            return None
        return key

    u = _Union()
    for v in veths:
        a, b = bridge(v["a"]), bridge(v["b"])
        if a is not None and b is not None:
            u.join(a, b)
    tunnels = [r.spec for r in lab.resources.values() if r.kind == "vxlan"]
    endpoint = {addr.split("/")[0]: (r.spec["ns"], r.spec["name"]) for r in lab.resources.values()
                if r.kind == "bridge" for addr in r.spec["addrs"]}
    by_local = {(t["vni"], t["local"]): t for t in tunnels}
    for t in tunnels:
        for remote in t["remotes"]:
            other = by_local.get((t["vni"], remote))
            if other is not None and u.find(endpoint[t["local"]]) == u.find(endpoint[remote]):
                u.join((t["ns"], t["master"]), (other["ns"], other["master"]))
    by_name = {v["b"]["name"]: v["b"] for v in veths}
    out: dict[str, object] = {}
    for vm in design.vms:
        for nic in vm.vnics:
            end = by_name.get(ifname("n", nic.id))
            key = bridge(end) if end is not None else None
            out[nic.id] = u.find(key) if key is not None else (("alone", nic.id) if end and end["master"] else None)
    return out


def predicted_domains(design: Topology) -> dict[str, object]:
    """vNIC id -> the prediction's L2 domain of its segment (None: its frames join no segment)."""
    net = Network(design)
    out: dict[str, object] = {}
    for vm in design.vms:
        for nic, point in zip(vm.vnics, net.points[vm.id]):
            seg = point.segment
            out[nic.id] = net.segments[seg].domain if seg is not None else None
    return out


def partition(labels: dict[str, object]) -> tuple[set[frozenset[str]], set[str]]:
    groups: dict[object, set[str]] = {}
    for nic, label in labels.items():
        if label is not None:
            groups.setdefault(label, set()).add(nic)
    return {frozenset(g) for g in groups.values()}, {n for n, label in labels.items() if label is None}


@given(st.randoms(use_true_random=False))
def test_the_labs_layer2_domains_are_the_predictions(rnd: random.Random):
    design = random_nat_design(rnd, teaming=False).t   # (pins and private VLANs split bridges by port:
    # test_lab_reach); with an edge VM's SNAT/DNAT and a hosted NAT's port forwards drawn too
    lab = desired_lab(design)
    assert partition(lab_domains(lab, design)) == partition(predicted_domains(design))


def macvtap_vepa(hairpin: bool, cabled: bool = True) -> Topology:
    d = Design("mv")
    k = d.host("kvm", pnics=1, kind=HostKind.KVM)
    mv = d.switch(k, "mv", ["kvm.vmnic0"], kind=SwitchKind.MACVTAP, macvtap_mode=MacvtapMode.VEPA)
    if cabled:
        d.plug(d.pswitch("tor"), "kvm.vmnic0", vlan=10, hairpin=hairpin)
    for i in range(2):
        d.vm(f"g{i}", k, mv, f"10.0.0.{i + 1}/24", nic_type="virtio")
    return d.t


def test_the_oracle_sees_guests_behind_one_port_as_one_domain_and_unwired_ones_apart():
    for hairpin in (False, True):
        design = macvtap_vepa(hairpin)
        assert len(set(lab_domains(desired_lab(design), design).values())) == 1
    design = macvtap_vepa(False, cabled=False)
    assert len(set(lab_domains(desired_lab(design), design).values())) == 2
    assert partition(lab_domains(desired_lab(design), design)) == partition(predicted_domains(design))
