"""Destination NAT deployed for real in the local lab (nftables ``dnat`` in the edge node's namespace): a physical
server reaches a VM on an unrouted NSX-T segment only at the edge's outside address, by TCP and UDP through port
forwards and by ping through a one-to-one rule, as the prediction says; the VM sees the server's own address
(only the destination is translated) and its replies come back through the translation."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_designs import unique_id
from lab_verify import verify_every_pair

from vnetbench.measure.verify import Outcome, flow_argv
from vnetbench.model import load
from vnetbench.model.objects import Dnat, Proto, VNic
from vnetbench.predict import Engine, Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

T1_T0 = Path(__file__).resolve().parents[2] / "resources" / "examples" / "nsx-t-t1-t0.vnet.yaml"
TCP_SERVER = ("import socket\ns=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
              "s.bind(('',5432));s.listen();print('ready',flush=True);c,a=s.accept();print(a[0],flush=True)\n")
UDP_SERVER = ("import socket\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(('',53));print('ready',flush=True)\n"
              "d,a=s.recvfrom(64);s.sendto(d,a);print(a[0],flush=True)\n")


def _listening(endpoint, script: str):
    """Start a server ``script`` in ``endpoint`` and return it once it listens (its first line), with the rest
    of its output to come."""
    server = endpoint.start(["python3", "-c", script])
    lines = server.lines()
    assert next(lines).strip() == "ready"
    return server, lines


def _design(rules: list[Dnat]):
    design = load(T1_T0)
    design.id = unique_id("dnat")
    next(vm for vm in design.vms if vm.name == "en01").forwarding.dnat = rules
    return design


def _served(lab, design, script: str, proto: str, port: int) -> tuple[int, str]:
    """Start ``script`` in db01, probe it from srv01 at ``port`` of en01's uplink address; the probe's exit
    status and the address the server saw the client at."""
    server, lines = _listening(lab.endpoint(design, "db01"), script)
    probe = lab.endpoint(design, "srv01").start(flow_argv(proto, "10.100.0.2", port))
    code = probe.wait(10)
    out = "".join(probe.lines())
    try:
        server.wait(5)
    except TimeoutError:
        server.terminate()
    seen = "".join(lines).strip()
    return (0 if proto == "tcp" and code == 0 or "answered" in out else 1), seen


def test_tcp_and_udp_port_forwards_reach_the_inside_vm_at_the_edge_address(lab):
    design = _design([Dnat("10.100.0.2", "172.16.30.11", Proto.TCP, 15432, 5432, "db-in"),
                      Dnat("10.100.0.2", "172.16.30.11", Proto.UDP, 10053, 53, "dns-in")])
    engine = Engine(design)
    for proto, port, outside in (("tcp", 5432, 15432), ("udp", 53, 10053)):
        p = engine.predict("srv01", "db01", proto, port)
        assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL and p.forward.entry == ("10.100.0.2", outside), proto
    lab.up(design)
    assert _served(lab, design, TCP_SERVER, "tcp", 15432) == (0, "10.200.0.10")
    assert _served(lab, design, UDP_SERVER, "udp", 10053) == (0, "10.200.0.10")
    # an unpublished port is not forwarded: en01 itself answers it (nothing listens there, a reset), as the
    # prediction's 'not published' says the inside VM is not reached
    assert engine.predict("srv01", "db01", "tcp", 15433).verdict is Verdict.UNREACHABLE
    server, _ = _listening(lab.endpoint(design, "db01"), TCP_SERVER.replace("5432", "15433"))
    probe = lab.endpoint(design, "srv01").start(flow_argv("tcp", "10.100.0.2", 15433))
    assert probe.wait(10) != 0
    server.terminate()


def test_a_one_to_one_dnat_carries_ping_and_the_verifier_confirms_every_pair(lab):
    """en01 gets a second outside address, 10.100.0.3, which it forwards whole to db01 (every protocol)."""
    design = _design([Dnat("10.100.0.3", "172.16.30.11", name="all-in")])
    en01 = next(vm for vm in design.vms if vm.name == "en01")
    en01.vnics.append(VNic("nic-en01-uplink2", "uplink2", network="pg-edge-uplink", ip="10.100.0.3/24"))
    assert Engine(design).predict("srv01", "db01").verdict is Verdict.ROUTED_VIA_PHYSICAL
    lab.up(design)
    result, bad = verify_every_pair(lab, design)
    assert bad == [], "\n".join(map(str, bad))
    inward = next(c for c in result.cells if (c.src_name, c.dst_name) == ("srv01", "db01"))
    [icmp] = [ch for ch in inward.checks if ch.what == "icmp"]
    assert (icmp.outcome, icmp.predicted) == (Outcome.CONFIRMED, "routed-via-physical")


PORT_FORWARD = T1_T0.with_name("hosted-nat-port-forward.vnet.yaml")


def test_a_hosted_nat_port_forward_lets_the_lan_in_and_the_verifier_confirms_every_pair(lab):
    """Seed 003's hosted NAT with [incomingtcp] 8080 and [incomingudp] 10161 to web01: the laptop reaches web01's
    servers at ws1's address, which web01 sees as the laptop's own; the verifier confirms every pair, and the
    forwarded TCP and UDP flows through the NAT."""
    design = load(PORT_FORWARD)
    design.id = unique_id("portfwd")
    lab.up(design)
    result, bad = verify_every_pair(lab, design)
    assert bad == [], "\n".join(map(str, bad))
    inward = next(c for c in result.cells if (c.src_name, c.dst_name) == ("laptop", "web01"))
    assert {(ch.what, ch.outcome, ch.predicted) for ch in inward.checks} >= {
        ("icmp", Outcome.CONFIRMED, "unreachable"), ("tcp/80", Outcome.CONFIRMED, "routed-via-physical"),
        ("udp/161", Outcome.CONFIRMED, "routed-via-physical")}
    # the host OS ws1 is an endpoint too (its adapter on VMnet8, deployed as the host's namespace): confirmed
    assert {(c.src_name, c.dst_name, c.verdict.value) for c in result.cells if "ws1" in (c.src_name, c.dst_name)} >= {
        ("web01", "ws1", "in-host"), ("ws1", "build01", "in-host"), ("laptop", "ws1", "unreachable")}
    assert lab.endpoint(design, "ws1").address() == "192.168.8.1"   # what measure runs its probes in
    server, lines = _listening(lab.endpoint(design, "web01"), TCP_SERVER.replace("5432", "80"))
    probe = lab.endpoint(design, "laptop").start(flow_argv("tcp", "192.168.1.10", 8080))
    assert probe.wait(10) == 0
    server.wait(5)
    assert "".join(lines).strip() == "192.168.1.50"
