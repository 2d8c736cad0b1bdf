"""Private VLANs on the KVM backend's Open vSwitch (``desired_pvlan``, ``pvlan_flows``), without libvirt or OVS:
each guest and uplink port gets one flow to the ports its role may reach, as ``forwarding.pvlan_may_talk``
answers; every VLAN of the map has its uplink port where the physical port carries it; what the flows do not
realise is refused with the reason. The real thing is tests/backends/kvm/test_kvm_pvlan.py."""

from __future__ import annotations

import pytest

from vnetbench.backends import BackendError
from vnetbench.model import Link, load
from vnetbench_kvm.desired import Boot, desired
from vnetbench_kvm.pvlan_flows import COOKIE_MASK, COOKIE_TAG, cookie, flow_lines, mark_of
from vnetbench import resources_dir

EXAMPLE = resources_dir() / "examples" / "kvm-ovs-private-vlans.vnet.yaml"


def _desired(design, emulate: bool = True):
    return desired(design, {h.id: Boot("/k", "/i") for h in design.hosts}, emulate)


def _flows(want) -> dict[str, set[str]]:
    """Each flow's input (MAC or port) -> its outputs."""
    return {f["in"].get("mac") or f["in"]["port"]: {o.get("mac") or o["port"] for o in f["out"]}
            for f in want.spec["flows"]}


def _macs(design) -> dict[str, str]:
    return {vm.name: vm.vnics[0].mac for vm in design.vms}


def test_each_role_floods_only_to_the_ports_it_may_reach():
    design = load(EXAMPLE)
    want = _desired(design)
    assert want.reasons == []
    flows = [w for w in want.wants.values() if w.kind == "flows"]
    assert len(flows) == 2
    kvm01 = next(w for w in flows if w.host == "host-kvm01")
    m, out = _macs(design), _flows(kvm01)
    ports = {w["phys"]: w["host_if"] for p in want.wants.values() if p.kind == "pnic" and p.host == "host-kvm01"
             for w in p.spec["wires"]}
    assert sorted(ports) == [200, 201, 202]                      # every VLAN of the map leaves by its own port
    assert out[m["web01"]] == {m["backup01"], ports[201]}          # isolated: promiscuous + its VLAN's uplink
    assert out[m["db01"]] == {m["backup01"], ports[202]}           # community: its own + promiscuous + uplink
    assert out[m["backup01"]] == {m["web01"], m["web02"], m["db01"], ports[200]}
    assert out[ports[201]] == {m["backup01"]}                     # isolated from outside: promiscuous only
    assert out[ports[202]] == {m["backup01"], m["db01"]}
    assert out[ports[200]] == {m["backup01"], m["web01"], m["web02"], m["db01"]}
    assert {"ovs/vnb-" + want.tag + "-ovs-kvm01", "domain/vnb-" + want.tag + "-web01"} <= set(kvm01.deps)


def test_where_the_physical_port_drops_the_isolated_vlan_it_has_no_uplink():
    design = load(EXAMPLE)
    want = _desired(design)
    kvm02 = next(w for w in want.wants.values() if w.kind == "flows" and w.host == "host-kvm02")
    assert _flows(kvm02)[_macs(design)["web03"]] == set()         # isolated, and VLAN 201 stops at Gi1/0/2


def test_a_private_vlan_portgroup_is_its_roles_access_vlan_in_libvirt():
    want = _desired(load(EXAMPLE))
    ovs = next(w for w in want.wants.values() if w.kind == "ovs")
    assert {g["name"]: g["tags"] for g in ovs.spec["portgroups"]} == {"Backup": [200], "Web": [201], "DB": [202]}


def test_real_pnics_and_a_patch_are_refused_with_the_reason():
    design = load(EXAMPLE)
    assert any("pnics=emulate only" in r for r in _desired(design, emulate=False).reasons)
    design.hosts[1].id = design.hosts[0].id = "host-kvm01"
    for vm in design.vms:
        vm.host = "host-kvm01"
    for sw in design.switches:
        sw.host = "host-kvm01"
    design.links.append(Link("patch", design.switches[0].id, design.switches[1].id))
    assert any("patched to another switch" in r for r in _desired(design).reasons)


def test_flow_lines_carry_the_mark_in_the_cookie_and_drop_where_no_port_may_be_reached():
    spec = {"bridge": "vb1", "flows": [{"in": {"mac": "52:54:00:00:00:01"}, "out": [{"port": "vw1"}]},
                                       {"in": {"port": "vw1"}, "out": []}]}
    lines = flow_lines(spec, "0123456789ab", {"52:54:00:00:00:01": 3, "vw1": 1})
    assert lines == ["cookie=0x766e0123456789ab,priority=100,in_port=3,actions=output:1",
                     "cookie=0x766e0123456789ab,priority=100,in_port=1,actions=drop"]
    assert mark_of(cookie("0123456789ab")) == "0123456789ab" and mark_of(0x1234) is None
    assert cookie("ffffffffffff") & COOKIE_MASK == COOKIE_TAG
    with pytest.raises(BackendError, match="no port for 52:54:00:00:00:01"):
        flow_lines(spec, "0123456789ab", {"vw1": 1})
