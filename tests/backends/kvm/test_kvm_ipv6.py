"""Dual stack in real KVM guests (QEMU TCG under a private libvirtd, the fixtures of conftest.py): a firewall
guest routes both families between a LAN and a DMZ guest, and its one rule, written for IPv4 only, rejects
LAN -> DMZ over IPv4 while IPv6 passes. Every ordered pair pings over IPv4 and IPv6 as its family's prediction
says, an emulated dual-stack physical host behind a pNIC among them; TCP connects over IPv6 where IPv4 is
rejected, twice (the second time the firewall must solicit a stale neighbour for the replies it forwards); the
DMZ guest and the physical host reach their IPv6 gateway by the firewall's link-local address, and the guest
holds a secondary IPv6 address; the firewall has an IPv6 static route with a link-local next hop; IPv6 in the
guests is quiet (no duplicate-address probes or router solicitations); import reads every address and both
gateways back; teardown restores the host.

The guests boot once for the module (TCG is slow) and the tests share them, in file order."""

from __future__ import annotations

import itertools

import pytest

from kvm_deploy import deployed_design
from kvmhost import listing

from vnetbench.measure import RunStatus, TestKind, TestSpec, measure
from vnetbench.model import VM, Action, ForwardMode, Host, HostKind, Switch, SwitchKind, Topology, VmRole, VNic
from vnetbench.model.families import address_of
from vnetbench.model.objects import (Forwarding, HostNic, Link, PhysicalHost, PhysicalSwitch, PNic, Port, Route, Rule,
                                     Uplink)
from vnetbench.predict import Engine

pytestmark = [pytest.mark.lab, pytest.mark.slow]

LAN, DMZ = "2001:db8:62:1::", "2001:db8:62:2::"
SECONDARY = f"{DMZ}21/64"


def _design() -> Topology:
    switches = [Switch(f"br-{side}", f"br-{side}", SwitchKind.LINUX_BRIDGE, host="h") for side in ("lan", "dmz")]
    fw = VM("vm-fw6", "fw6", host="h", role=VmRole.FIREWALL,
            vnics=[VNic("nic-fw6-lan", "lan", network="br-lan", ip="10.62.1.1/24", addresses=[f"{LAN}1/64"]),
                   VNic("nic-fw6-dmz", "dmz", network="br-dmz", ip="10.62.2.1/24",
                        addresses=[f"{DMZ}1/64", "fe80::1/64"])],
            forwarding=Forwarding(ForwardMode.ROUTED, rules=[
                Rule(Action.REJECT, "10.62.1.0/24", "10.62.2.0/24", name="lan-to-dmz-v4-only")],
                routes=[Route("2001:db8:69::/64", "fe80::20%dmz")]))
    lan = VM("vm-lan6", "lan6", host="h",
             vnics=[VNic("nic-lan6", "eth0", network="br-lan", ip="10.62.1.10/24", addresses=[f"{LAN}10/64"],
                         gateway="10.62.1.1", gateway6=f"{LAN}1")])
    dmz = VM("vm-dmz6", "dmz6", host="h",
             vnics=[VNic("nic-dmz6", "eth0", network="br-dmz", ip=f"{DMZ}20/64",
                         addresses=["10.62.2.20/24", SECONDARY], gateway="10.62.2.1", gateway6="fe80::1%eth0")])
    switches[1].uplinks = [Uplink("pnic-h-dmz")]          # the DMZ reaches an emulated physical host
    ph = PhysicalHost("ph-db6", "db6", nics=[HostNic("hnic-db6", "eth0", ip="10.62.2.30/24", gateway="10.62.2.1",
                                                     addresses=[f"{DMZ}30/64"], gateway6="fe80::1%eth0")])
    ps = PhysicalSwitch("ps-62", "tor62", ports=[Port("port-h", "Gi1/1", access_vlan=62),
                                                  Port("port-db6", "Gi1/2", access_vlan=62)])
    return Topology("kvm-ipv6-e2e", "KVM dual stack through a firewall guest with IPv4-only rules",
                    hosts=[Host("h", "kvm01", HostKind.KVM, pnics=[PNic("pnic-h-dmz", "eth9")])],
                    switches=switches, vms=[fw, lan, dmz], physical_switches=[ps], physical_hosts=[ph],
                    links=[Link("l-h", "pnic-h-dmz", "port-h"), Link("l-db6", "hnic-db6", "port-db6")])


@pytest.fixture(scope="module")
def deployed(kvm_host):
    yield from deployed_design(kvm_host, _design())


def _run(backend, design, vm_id: str, argv: list[str]) -> tuple[int, str]:
    cmd = backend.endpoint(design, vm_id).start(argv)
    out = "\n".join(cmd.lines())
    return cmd.wait(30), out


def _endpoints(design) -> list[str]:
    return [vm.id for vm in design.vms] + [ph.id for ph in design.physical_hosts]


def _target(design, part_id: str, fam: int) -> str:
    part = next(p for p in [*design.vms, *design.physical_hosts] if p.id == part_id)
    return address_of((part.vnics if isinstance(part, VM) else part.nics)[0], fam).split("/")[0]


def test_the_guests_deploy_with_both_families(deployed):
    backend, design, results = deployed
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    code, shown = _run(backend, design, "vm-dmz6", ["ip", "-o", "addr", "show", "dev", "eth0"])
    assert code == 0, shown
    for addr in (f"{DMZ}20/64", "10.62.2.20/24", SECONDARY):
        assert f" {addr} " in shown, shown
    assert "tentative" not in shown, shown                                # no duplicate-address probe
    code, routes = _run(backend, design, "vm-dmz6", ["ip", "-6", "route", "show", "default"])
    assert "via fe80::1 dev eth0" in routes, routes
    code, quiet = _run(backend, design, "vm-dmz6", ["sh", "-c", "cd /proc/sys/net/ipv6/conf/eth0 && cat accept_dad "
                                                           "accept_ra router_solicitations"])
    assert quiet.split() == ["0", "0", "0"], quiet
    code, fw = _run(backend, design, "vm-fw6", ["sh", "-c", "cat /proc/sys/net/ipv6/conf/all/forwarding; "
                                                        "ip -6 route show 2001:db8:69::/64; "
                                                        "ip -6 -o addr show dev eth0 scope link"])
    assert fw.split()[0] == "1" and "via fe80::20 dev eth1" in fw, fw
    # a link-local address on every leg: the source of the neighbour solicitations for what it forwards
    assert " fe80::" in fw.split("\n", 2)[2], fw
    assert backend.plan(design).empty


def test_every_pair_pings_as_its_family_predicts(deployed):
    backend, design, _ = deployed
    engines = {fam: Engine(design, fam) for fam in (4, 6)}
    cases = [(a, b, fam) for a, b in itertools.permutations(_endpoints(design), 2) for fam in (4, 6)]
    running = {(a, b, fam): backend.endpoint(design, a).start(["ping", f"-{fam}", "-c3", "-i0.3", "-W2",
                                                                _target(design, b, fam)])
               for a, b, fam in cases}
    seen = {}
    for case, cmd in running.items():
        list(cmd.lines())
        seen[case] = cmd.wait(30) == 0
    expected = {(a, b, fam): engines[fam].predict(a, b, "icmp").verdict.delivered for a, b, fam in cases}
    assert {c: (v, expected[c]) for c, v in seen.items() if v != expected[c]} == {}
    assert (seen[("vm-lan6", "vm-dmz6", 4)], seen[("vm-lan6", "vm-dmz6", 6)]) == (False, True)
    assert seen[("vm-dmz6", "vm-lan6", 6)]             # out by the firewall's link-local address
    # the emulated physical host speaks both families and leaves by its link-local IPv6 gateway
    assert (seen[("ph-db6", "vm-lan6", 4)], seen[("ph-db6", "vm-lan6", 6)]) == (True, True)
    assert (seen[("vm-lan6", "ph-db6", 4)], seen[("vm-lan6", "ph-db6", 6)]) == (False, True)
    code, out = _run(backend, design, "vm-lan6", ["ping", "-6", "-c2", "-W2", SECONDARY.split("/")[0]])
    assert code == 0, out


def test_tcp_connects_over_ipv6_where_ipv4_is_rejected(deployed):
    backend, design, _ = deployed
    src, dst = backend.endpoint(design, "vm-lan6"), backend.endpoint(design, "vm-dmz6")
    assert dst.address_in(6) == f"{DMZ}20"
    for _ in range(2):
        run = measure(TestSpec(TestKind.THROUGHPUT, duration=1, cpu=None, family=6), src, dst)
        assert run.status is RunStatus.OK, run.error
        assert run.summary["throughput_mbps"] > 0 and any(f"{DMZ}20" in c for c in run.commands)
    blocked = measure(TestSpec(TestKind.THROUGHPUT, duration=1, cpu=None, family=4), src, dst)
    assert blocked.status is RunStatus.FAILED                 # fw6's rule rejects IPv4 LAN -> DMZ


def test_sockperf_measures_round_trips_over_ipv6_with_the_guests_own_shim(deployed):
    """Debian's sockperf 3.7 takes IPv4 only; the probe guests carry vnetbench's IPv6 shim at a path of their own,
    which the command names (not this machine's build). Over IPv4 fw6 rejects LAN -> DMZ, so the round trips that
    pass are IPv6 ones."""
    backend, design, _ = deployed
    src, dst = backend.endpoint(design, "vm-lan6"), backend.endpoint(design, "vm-dmz6")
    run = measure(TestSpec(TestKind.RR, duration=2, cpu=None, family=6), src, dst)
    assert run.status is RunStatus.OK, run.error
    assert run.summary["round_trips"] > 0 and run.summary["rtt_p99_us"] >= run.summary["rtt_p50_us"] > 0
    assert TestSpec.from_dict(run.spec.to_dict()).family == 6       # what the run store keeps
    assert all(f"LD_PRELOAD=/usr/lib/vnetbench/sockperf_inet6.so VNETBENCH_INET6=192.0.2.1={DMZ}20" in c
               for c in run.commands), run.commands
    print(f"lan6 -> dmz6 rr over IPv6 (TCG): p50 {run.summary['rtt_p50_us']:.0f} us, "
          f"p99 {run.summary['rtt_p99_us']:.0f} us ({run.summary['round_trips']:.0f} round trips)")
    blocked = measure(TestSpec(TestKind.RR, duration=1, cpu=None, family=4), src, dst)
    assert blocked.status is RunStatus.FAILED                 # fw6's rule rejects IPv4 LAN -> DMZ


def test_import_reads_both_families_back(deployed):
    backend, design, _ = deployed
    imported = {vm.name: vm for vm in backend.import_design().vms}
    nic = imported["dmz6"].vnics[0]
    assert (nic.ip, nic.addresses, nic.gateway, nic.gateway6) == (
        f"{DMZ}20/64", ["10.62.2.20/24", SECONDARY], "10.62.2.1", f"fe80::1%{nic.name}")
    lan = imported["lan6"].vnics[0]
    assert (lan.ip, lan.addresses, lan.gateway, lan.gateway6) == ("10.62.1.10/24", [f"{LAN}10/64"], "10.62.1.1",
                                                                  f"{LAN}1")
    assert imported["fw6"].vnics[1].addresses == [f"{DMZ}1/64", "fe80::1/64"]


def test_teardown_leaves_the_host_as_before(deployed, kvm_host):
    backend, design, _ = deployed
    assert all(r.ok for r in backend.teardown(design.id))
    assert listing(kvm_host) == kvm_host.before
