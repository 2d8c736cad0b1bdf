"""SNAT and DNAT in a real KVM router guest (QEMU TCG under a private libvirtd, the fixtures of conftest.py):
three guests, a client behind the router, the router with a SNAT and a TCP port forward, and a server outside
with no route back to the client's subnet. The client reaches the server only through the SNAT (the server
sees the router's address), the server reaches the client's iperf3 only at the router's outside address (the
client sees the server's own address), and every ping agrees with the prediction.

The guests boot once for the module (TCG is slow) and the tests share them, in file order."""

from __future__ import annotations

import re
import time

import pytest

from kvm_deploy import deployed_design, lab_agreement
from kvmhost import listing

from vnetbench.model import VM, ForwardMode, Host, HostKind, Switch, SwitchKind, Topology, VmRole, VNic
from vnetbench.model.objects import Dnat, Forwarding, Proto, Snat
from vnetbench.predict import Engine, Verdict

pytestmark = [pytest.mark.lab, pytest.mark.slow]

OUTSIDE = "10.61.2.1"                    # rt01's address on the server's side: the SNAT's and the DNAT's


def _design() -> Topology:
    switches = [Switch(f"br-{side}", f"br-{side}", SwitchKind.LINUX_BRIDGE, host="h") for side in ("lan", "wan")]
    router = VM("vm-rt01", "rt01", host="h", role=VmRole.ROUTER,
                vnics=[VNic("nic-rt01-lan", "lan", network="br-lan", ip="10.61.1.1/24"),
                       VNic("nic-rt01-wan", "wan", network="br-wan", ip=f"{OUTSIDE}/24")],
                forwarding=Forwarding(ForwardMode.ROUTED,
                                      snat=[Snat("10.61.1.0/24", OUTSIDE, interface="wan", name="lan-out")],
                                      dnat=[Dnat(OUTSIDE, "10.61.1.10", Proto.TCP, 15201, 5201, "iperf-in")]))
    client = VM("vm-lan01", "lan01", host="h",
                vnics=[VNic("nic-lan01", "eth0", network="br-lan", ip="10.61.1.10/24", gateway="10.61.1.1")])
    server = VM("vm-srv01", "srv01", host="h",           # no gateway: it answers only what the SNAT made local
                vnics=[VNic("nic-srv01", "eth0", network="br-wan", ip="10.61.2.20/24")])
    return Topology("kvm-nat-e2e", "KVM router guest with SNAT and DNAT", hosts=[Host("h", "kvm01", HostKind.KVM)],
                    switches=switches, vms=[router, client, server])


@pytest.fixture(scope="module")
def deployed(kvm_host):
    yield from deployed_design(kvm_host, _design())


def _served(backend, design, client: str, server: str, address: str, port: int) -> tuple[bool, str | None]:
    """Run one iperf3 from ``client`` to ``address``:``port`` with the server in ``server`` (on 5201): whether it
    connected, and the address the server saw the client at."""
    server_cmd = backend.endpoint(design, server).start(["iperf3", "-s", "-1", "-p", "5201"])
    time.sleep(0.3)
    for _ in range(5):   # a busy TCG guest may not listen or answer yet (refused, or no answer): tried again
        run = backend.endpoint(design, client).start(["iperf3", "-c", address, "-p", str(port), "-t", "1",
                                                      "--connect-timeout", "3000"])
        run.lines()
        ok = run.wait(20) == 0
        if ok:
            break
        time.sleep(0.5)
    if ok:
        server_cmd.wait(20)
    else:
        server_cmd.terminate()
    seen = re.search(r"Accepted connection from ([0-9.]+)", "\n".join(server_cmd.lines()))
    return ok, seen.group(1) if seen else None


def test_the_router_guest_deploys_with_its_nat(deployed):
    backend, design, results = deployed
    assert all(r.ok for r in results), [f"{r.change.key}: {r.error}" for r in results if not r.ok]
    rt01 = backend.endpoint(design, "vm-rt01").start(["nft", "list", "table", "ip", "vnb"])
    table = "\n".join(rt01.lines())
    assert rt01.wait(20) == 0, table
    assert f'oifname "eth1" snat to {OUTSIDE}' in table and "dnat to 10.61.1.10:5201" in table
    assert backend.plan(design).empty


def test_pings_agree_with_the_prediction(deployed):
    backend, design, _ = deployed
    lab, engine = lab_agreement(), Engine(design)
    jobs = []
    for src, dst in (("vm-lan01", "vm-srv01"), ("vm-srv01", "vm-lan01")):
        p = engine.predict(src, dst, "icmp")
        dst_ep = backend.endpoint(design, dst)
        jobs.append({"src_ep": backend.endpoint(design, src), "src": src, "dst": dst, "verdict": p.verdict,
                     "addresses": [lab._target(p, dst_ep)] if p.verdict in lab.REACHABLE else
                     [dst_ep.address(n) for n in dst_ep.addresses]})
    seen = {(j["src"], j["dst"]): (j["verdict"], ok) for j, ok in lab._ping_all(jobs)}
    # out through the SNAT: the server answers the router's address; in: no route back and no ICMP forward
    assert seen == {("vm-lan01", "vm-srv01"): (Verdict.IN_HOST_ROUTED, True),
                    ("vm-srv01", "vm-lan01"): (Verdict.UNREACHABLE, False)}


def test_the_client_reaches_the_server_through_the_snat(deployed):
    backend, design, _ = deployed
    assert Engine(design).predict("vm-lan01", "vm-srv01", "tcp", 5201).verdict is Verdict.IN_HOST_ROUTED
    assert _served(backend, design, "vm-lan01", "vm-srv01", "10.61.2.20", 5201) == (True, OUTSIDE)


def test_the_server_reaches_the_inside_client_at_the_router_outside_address(deployed):
    backend, design, _ = deployed
    p = Engine(design).predict("vm-srv01", "vm-lan01", "tcp", 5201)
    assert p.verdict is Verdict.IN_HOST_ROUTED and p.forward.entry == (OUTSIDE, 15201)
    assert _served(backend, design, "vm-srv01", "vm-lan01", OUTSIDE, 15201) == (True, "10.61.2.20")


def test_teardown_leaves_the_host_as_before(deployed, kvm_host):
    backend, design, _ = deployed
    assert all(r.ok for r in backend.teardown(design.id))
    assert listing(kvm_host) == kvm_host.before
