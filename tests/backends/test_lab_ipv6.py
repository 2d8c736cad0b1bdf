"""IPv6 in the real lab: the dual-stack example deployed, each family checked against its own prediction.

The example's firewall rules name IPv4 networks only, so dmz01 -> app01 is blocked over IPv4 and routed over IPv6;
web02 reaches its IPv6 gateway by the firewall's link-local address. Every pair is pinged with real ``ping -4`` and
``ping -6``, the largest IPv6 packet is sent across the firewall with don't-fragment semantics (IPv6 routers never
fragment), and a TCP connection is made over IPv6 through it. IPv6 is quiet: right after the deploy the pNICs carry
far less than verify's smallest burst (no duplicate-address probes, router solicitations or listener reports).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lab_designs import unique_id
from lab_kernel import kernel_lists

from vnetbench.measure import RunStatus, TestKind, TestSpec, measure
from vnetbench.measure.verify import BURST, MIN_BURST_SIZE, Outcome, Verifier, plan_pairs
from vnetbench.backends.planning import design_tag
from vnetbench.model import load
from vnetbench.model.families import address_of, link_local
from vnetbench.predict import Engine
from vnetbench_local.desired import desired_lab

pytestmark = pytest.mark.lab

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
#: The IPv6 header (40) and the ICMPv6 echo header (8) around ``ping -s`` bytes.
ICMP6_AND_IP6 = 48
#: What the pNICs may carry unasked right after a deploy: a quarter of verify's smallest burst.
QUIET_BYTES = BURST * MIN_BURST_SIZE // 4


def dual_stack():
    design = load(EXAMPLES / "esx-dual-stack.vnet.yaml")
    design.id = unique_id("dual-stack")
    return design


def address(design, vm_id: str, fam: int) -> str:
    vm = next(v for v in design.vms if v.id == vm_id)
    return address_of(vm.vnics[0], fam).split("/")[0]


def ping_argv(target: str, size: int | None = None) -> list[str]:
    df = ["-M", "do", "-s", str(size)] if size is not None else []
    return ["ping", "-6" if ":" in target else "-4", *df, "-c2", "-i0.2", "-W1", "-w3", target]


def succeeds(lab, design, src: str, argv: list[str]) -> bool:
    cmd = lab.endpoint(design, src).start(argv)
    list(cmd.lines())
    return cmd.wait(10) == 0


def test_a_dual_stack_deploy_is_quiet_on_the_pnics(lab):
    """IPv6 speaks up on its own for seconds after a link comes up: duplicate-address probes, router
    solicitations (every 4 s, three times), each from a link-local address the kernel makes. Verify's pNIC
    counters would count them as a burst's bytes. Every namespace that speaks IPv6 has all of that off, holds no
    link-local address but the design's and the lab's own for its routers, and no address is left tentative;
    the pNICs then count next to nothing once the kernel's own listener reports for the new addresses are out
    (twice, at most a second apart, as the addresses are added)."""
    design = dual_stack()
    lab.up(design)
    wanted: dict[str, set[str]] = {}     # the link-local addresses the lab gives (the design's, its routers' own)
    for res in desired_lab(design).resources.values():
        for end in (res.spec["a"], res.spec["b"]) if res.kind == "veth" else (res.spec,) if res.kind == "bridge" else ():
            wanted.setdefault(end["ns"], set()).update(a for a in end["addrs"] if link_local(a))
    speaking = 0
    for ns in sorted(n for n in kernel_lists()[0] if n.startswith(f"vnb{design_tag(design.id)}-")):
        if sysctl(ns, "net.ipv6.conf.all.disable_ipv6") == "1":
            continue
        speaking += 1
        assert [sysctl(ns, f"net.ipv6.conf.default.{key}") for key in
                ("accept_dad", "accept_ra", "router_solicitations", "addr_gen_mode")] == ["0", "0", "0", "1"], ns
        shown = subprocess.run(["ip", "-n", ns, "-6", "-o", "addr"], capture_output=True, text=True,
                               check=True).stdout
        local = {line.split("inet6 ")[1].split()[0] for line in shown.splitlines() if " fe80:" in line}
        assert local <= wanted.get(ns, set()) and "tentative" not in shown, (ns, shown)
    assert speaking >= 4
    time.sleep(3)
    before = lab.pnic_counters(design)
    time.sleep(2)
    after = lab.pnic_counters(design)
    chatter = sum(after[k] - before.get(k, 0) for k in after)
    assert before and chatter < QUIET_BYTES, (chatter, before, after)


def sysctl(ns: str, key: str) -> str:
    return subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-n", key], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_every_pair_reaches_as_its_family_predicts(lab):
    design = dual_stack()
    engines = {fam: Engine(design, fam) for fam in (4, 6)}
    lab.up(design)
    vms = [vm.id for vm in design.vms]
    cases = [(a, b, fam) for a, b in itertools.permutations(vms, 2) for fam in (4, 6)]
    running = {case: lab.endpoint(design, case[0]).start(ping_argv(address(design, case[1], case[2])))
               for case in cases}
    seen = {}
    for case, cmd in running.items():
        list(cmd.lines())
        seen[case] = cmd.wait(10) == 0
    expected = {(a, b, fam): engines[fam].predict(a, b, "icmp").verdict.delivered for a, b, fam in cases}
    assert {c: v for c, v in seen.items() if v != expected[c]} == {}
    assert (seen[("vm-dmz01", "vm-app01", 4)], seen[("vm-dmz01", "vm-app01", 6)]) == (False, True)
    assert seen[("vm-web02", "vm-app01", 6)]           # by the firewall's link-local address


def test_the_largest_ipv6_packet_crosses_the_firewall_and_one_byte_more_does_not(lab):
    design = dual_stack()
    mtu, at = Engine(design, 6).predict("vm-dmz01", "vm-app01", "icmp").mtu
    assert mtu >= 1280, at
    lab.up(design)
    target = address(design, "vm-app01", 6)
    assert succeeds(lab, design, "vm-dmz01", ping_argv(target, mtu - ICMP6_AND_IP6))
    assert not succeeds(lab, design, "vm-dmz01", ping_argv(target, mtu - ICMP6_AND_IP6 + 1))


SERVER = ("import socket, sys\n"
          "s = socket.create_server(('::', 5201), family=socket.AF_INET6, dualstack_ipv6=True)\n"
          "print('listening', flush=True)\n"
          "s.settimeout(8)\n"
          "for _ in range(2):\n"
          "    try:\n"
          "        c, peer = s.accept()\n"
          "    except TimeoutError:\n"
          "        break\n"
          "    c.sendall(b'hello ' + peer[0].encode())\n"
          "    c.close()\n")
CLIENT = ("import socket, sys\n"
          "try:\n"
          "    c = socket.create_connection((sys.argv[1], 5201), timeout=3)\n"
          "except OSError as exc:\n"
          "    sys.exit(f'no connection: {exc}')\n"
          "print(c.recv(100).decode())\n")


def test_tcp_connects_over_ipv6_through_the_firewall_where_ipv4_is_denied(lab):
    design = dual_stack()
    lab.up(design)
    server = lab.endpoint(design, "vm-app01").start([sys.executable, "-c", SERVER])
    assert next(iter(server.lines())) == "listening"
    try:
        out6 = lab.endpoint(design, "vm-dmz01").start([sys.executable, "-c", CLIENT, address(design, "vm-app01", 6)])
        assert list(out6.lines()) == [f"hello {address(design, 'vm-dmz01', 6)}"] and out6.wait(10) == 0
        out4 = lab.endpoint(design, "vm-dmz01").start([sys.executable, "-c", CLIENT, address(design, "vm-app01", 4)])
        list(out4.lines())
        assert out4.wait(10) != 0                      # fw01's dmz-to-app rule drops IPv4
    finally:
        server.terminate()
        server.wait(10)


def test_iperf3_measures_over_ipv6_where_ipv4_is_denied_and_the_run_keeps_its_family(lab):
    design = dual_stack()
    lab.up(design)
    src, dst = lab.endpoint(design, "vm-dmz01"), lab.endpoint(design, "vm-app01")
    assert dst.address_in(6) == address(design, "vm-app01", 6)
    run = measure(TestSpec(TestKind.THROUGHPUT, duration=1, cpu=None, family=6), src, dst)
    assert run.status is RunStatus.OK, run.error
    assert run.summary["throughput_mbps"] > 0 and any(address(design, "vm-app01", 6) in c for c in run.commands)
    assert TestSpec.from_dict(run.spec.to_dict()).family == 6       # what the run store keeps
    blocked = measure(TestSpec(TestKind.THROUGHPUT, duration=1, cpu=None, family=4), src, dst)
    assert blocked.status is RunStatus.FAILED                 # fw01's dmz-to-app rule drops IPv4


def test_verify_over_ipv6_confirms_every_pair_against_the_ipv6_prediction(lab):
    """verify's prober sends ICMPv6 echoes (bursts counted on the pNICs, the IPv6 largest packet), its flow
    probes connect over IPv6: every pair of the IPv6 matrix is confirmed, dmz01 -> app01 delivered."""
    design = dual_stack()
    lab.up(design)
    engine = Engine(design, 6)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    result = Verifier(lab, design, plans, scope, limits=left, family=6).run()
    assert [(c.src_name, c.dst_name, [ch.detail for ch in c.checks]) for c in result.cells
            if c.outcome is not Outcome.CONFIRMED] == []
    cell = next(c for c in result.cells if (c.src_name, c.dst_name) == ("dmz01", "app01"))
    assert cell.verdict.delivered and any(ch.what == "largest packet" for ch in cell.checks)


def test_sockperf_measures_round_trips_over_ipv6_where_ipv4_is_denied_and_the_run_keeps_its_family(lab):
    """Debian's sockperf 3.7 takes IPv4 only; through vnetbench's shim it runs over IPv6 (dmz01 -> app01, which
    fw01 denies over IPv4, so round trips there are IPv6 ones). web01 -> app01 passes in both families: its
    round trips are printed for each, measured back to back."""
    design = dual_stack()
    lab.up(design)
    src, dst = lab.endpoint(design, "vm-dmz01"), lab.endpoint(design, "vm-app01")
    run = measure(TestSpec(TestKind.RR, duration=2, family=6), src, dst)
    assert run.status is RunStatus.OK, run.error
    assert run.summary["round_trips"] > 0 and run.summary["rtt_p99_us"] >= run.summary["rtt_p50_us"] > 0
    assert all(f"=192.0.2.1={address(design, 'vm-app01', 6)}" in c for c in run.commands)
    assert TestSpec.from_dict(run.spec.to_dict()).family == 6       # what the run store keeps
    blocked = measure(TestSpec(TestKind.RR, duration=1, family=4), src, dst)
    assert blocked.status is RunStatus.FAILED                 # fw01's dmz-to-app rule drops IPv4

    web01 = lab.endpoint(design, "vm-web01")
    for fam in (4, 6):
        both = measure(TestSpec(TestKind.RR, duration=3, family=fam), web01, dst)
        assert both.status is RunStatus.OK, both.error
        print(f"web01 -> app01 rr over IPv{fam}: p50 {both.summary['rtt_p50_us']:.1f} us, "
              f"p99 {both.summary['rtt_p99_us']:.1f} us ({both.summary['round_trips']:.0f} round trips)")
