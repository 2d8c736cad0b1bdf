"""IPv6 on NSX distributed routers and hosted networks in the real lab: the NSX-V, NSX-T and hosted examples made
dual stack, deployed, and every pair of each family confirmed against that family's prediction.

``dual_stack`` gives every interface of an example its IPv6 twin in 2001:db8::/96 (the IPv4 address in the low 32
bits, the prefix plus 96, so subnets stay subnets), every gateway and static route its twin, and a host-only
network's host adapter its IPv6 address instead of its IPv4 one (the model holds one). NAT, DNAT and the tunnel
endpoints stay IPv4, as in the model. Verify's prober pings every pair with real ICMP echoes of the family,
counts the bursts on the pNICs, sends the largest packet and connects the predicted flows.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from pathlib import Path

import pytest
from lab_designs import unique_id
from lab_verify import verify_every_pair
from test_lab_ipv6 import ping_argv

from vnetbench.model import SwitchKind, Topology, load
from vnetbench.model.families import family, interfaces, link_local
from vnetbench.predict import Engine, Verdict
from vnetbench_local.desired import desired_lab

pytestmark = pytest.mark.lab

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
TWINS = ipaddress.IPv6Network("2001:db8::/96")


def twin(text: str) -> str:
    """An IPv4 address, address/prefix or network as its IPv6 twin in 2001:db8::/96; ``0.0.0.0/0`` as ``::/0``."""
    address, slash, prefix = text.strip().partition("/")
    if slash and int(prefix) == 0:
        return "::/0"
    six = TWINS[int(ipaddress.IPv4Address(address))]
    return f"{six}/{int(prefix) + 96}" if slash else str(six)


def dual_stack(example: str) -> Topology:
    """``example`` with the IPv6 twins of its addresses, gateways and routes (see the module's docstring)."""
    design = load(EXAMPLES / f"{example}.vnet.yaml")
    design.id = unique_id(example)
    for part in interfaces(design):
        if family(part.ip) == 4:
            part.addresses.append(twin(part.ip))
        if family(getattr(part, "gateway", None)) == 4:
            part.gateway6 = twin(part.gateway)
    owners = [*design.physical_routers, *design.nsx.dlrs, *(vm.forwarding for vm in design.vms)]
    for owner in owners:
        owner.routes += [dataclasses.replace(r, prefix=r.prefix if r.prefix == "default" else twin(r.prefix),
                                             via=twin(r.via)) for r in owner.routes if family(r.via) == 4]
    for sw in design.switches:
        if sw.kind is SwitchKind.HOSTED_HOSTONLY and sw.host_address:
            sw.host_address = twin(sw.host_address)
    return design


def test_the_lab_builds_dlr_interfaces_and_host_adapters_in_both_families():
    nsx = desired_lab(dual_stack("nsx-v-two-tier"))
    assert nsx.reasons == []
    legs = [r.spec["a"] for r in nsx.resources.values() if r.kind == "veth" and "(DLR " in r.description]
    assert legs and all({family(a) for a in leg["addrs"]} == {4, 6} for leg in legs)
    # a router solicits its next hop for a forwarded packet from its link-local address, which the lab gives it
    assert all(sum(link_local(a) for a in leg["addrs"]) == 1 for leg in legs)
    neighbours = [ip for r in nsx.resources.values() if r.kind == "routes" for ip, _, _ in r.spec.get("neigh", [])]
    assert {family(ip) for ip in neighbours} == {4, 6}
    rules = " ".join(r.spec["text"] for r in nsx.resources.values() if r.kind == "nft" and r.spec["family"] == "bridge")
    assert "neighbour discovery stays local" in rules and "ARP stays local" in rules
    hosted = desired_lab(dual_stack("hosted-vmware-server"))
    assert hosted.reasons == []
    [host] = [e for e in hosted.endpoints.values() if e.addresses6 and not e.addresses]   # the host OS: IPv6 only
    assert list(host.addresses6.values()) == [twin("192.168.188.1/24")]


@pytest.mark.slow
@pytest.mark.parametrize("example", ["nsx-v-two-tier", "hosted-vmware-server", "hosted-nat-port-forward",
                                     "nsx-t-t1-t0"])
def test_every_pair_of_each_family_is_confirmed(lab, example):
    design = dual_stack(example)
    lab.up(design)
    delivered = {}
    for fam in (4, 6):
        result, bad = verify_every_pair(lab, design, fam)
        assert bad == [], (fam, bad)
        delivered[fam] = {(c.src_name, c.dst_name) for c in result.cells if c.verdict.delivered}
    assert delivered[6], "no pair reached over IPv6"
    if example.startswith("nsx"):        # routed by the distributed routers over IPv6 too
        routed = {(c.src_name, c.dst_name) for c in result.cells if c.verdict.delivered
                  and "routed" in str(c.verdict)}
        assert routed, delivered[6]


def test_tier1_gateways_route_ipv6_through_the_tier0_one_inside_a_host(lab):
    """web01 -> db01 over IPv6: Tier-1 t1-tenant-a hands it to Tier-0 t0-provider, which hands it to Tier-1
    t1-tenant-b, all three instances in esx-comp01's kernel. Each router looks its next router up with a
    neighbour solicitation sent from its own link-local address (for a forwarded packet Linux sends none
    without one), so the pair crosses only with the lab's link-local addresses on the DLR interfaces."""
    design = dual_stack("nsx-t-t1-t0")
    engine = Engine(design, 6)
    lab.up(design)
    for src, dst in (("vm-web01", "vm-db01"), ("vm-db01", "vm-web01")):
        assert engine.predict(src, dst, "icmp").verdict is Verdict.IN_HOST_ROUTED
        cmd = lab.endpoint(design, src).start(ping_argv(lab.endpoint(design, dst).address_in(6)))
        list(cmd.lines())
        assert cmd.wait(10) == 0, (src, dst)
