"""The local lab on real network namespaces (root): plan/apply/teardown, faults, traffic, endpoints."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from lab_kernel import kernel_lists
from lab_designs import campus, firewalled, hosted_nat, kvm_patch, looped, macvtap, openstack

from vnetbench.backends import Op, Unsupported
from vnetbench.model import ForwardMode, MacvtapMode, save
from vnetbench.backends.planning import design_tag
from vnetbench.predict import Engine, Verdict

pytestmark = pytest.mark.lab


def ping(backend, design, src, dst_ip, wait=2):
    cmd = backend.endpoint(design, src).start(["ping", "-c4", "-i0.25", f"-W{wait}", dst_ip])
    list(cmd.lines())
    return cmd.wait(10) == 0


def ours(tag, namespaces):
    return {n for n in namespaces if n.startswith(f"vnb{tag}-")}


def test_up_is_idempotent_and_a_vlan_edit_changes_only_that(lab):
    d = campus(vms_per_host=2, hosts=2)
    lab.up(d)
    assert lab.plan(d).empty
    assert ping(lab, d, "h0v0", "10.10.1.10")          # same VLAN across hosts, through the physical switch
    assert ping(lab, d, "h0v0", "10.20.1.11")          # routed by the L3 switch
    d.switches[0].portgroups[0].vlan = 20              # host 0's "VLAN10" portgroup now tags VLAN 20
    plan = lab.plan(d)
    touched = {c.object_id for c in plan.changes}
    assert touched <= {"h0v0", "h0-vs0", "h0-nic0"}, [str(c) for c in plan.changes]
    assert {"h0v0", "h0-vs0"} <= touched
    assert not any(c.op is Op.DELETE and c.kind == "netns" for c in plan.changes)
    results = lab.apply(plan)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert lab.plan(d).empty
    assert not ping(lab, d, "h0v0", "10.10.1.10")      # VLAN 10 is now out of reach for h0v0
    assert ping(lab, d, "h1v1", "10.10.1.10")          # the rest still works


def test_the_lab_is_ipv4_only_so_its_pnics_carry_no_ipv6_chatter(lab):
    """IPv6 on would send address probes, router solicitations and listener reports from every new link for
    seconds, flooded over the bridges and across the pNICs, where verify would count them as a burst's bytes."""
    d = campus(vms_per_host=2, hosts=2)
    lab.up(d)
    namespaces = ours(design_tag(d.id), kernel_lists()[0])
    assert len(namespaces) == 8
    for ns in sorted(namespaces):
        links = json.loads(subprocess.run(["ip", "-n", ns, "-j", "-6", "addr"], capture_output=True, text=True,
                                          check=True).stdout or "[]")
        assert [(x["ifname"], a["local"]) for x in links for a in x.get("addr_info", [])] == [], ns
        disabled = subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-n", "net.ipv6.conf.default.disable_ipv6"],
                                  capture_output=True, text=True, check=True).stdout.strip()
        assert disabled == "1", ns


def test_lab_bridges_keep_learned_macs_so_a_long_verify_sees_no_floods(lab):
    """With the kernel's 5-minute ageing, a frame for a MAC not heard from lately floods every port of its
    bridge, and over a tunnel to every endpoint: extra pNIC crossings that verify would count."""
    d = campus(vms_per_host=2, hosts=2)
    lab.up(d)
    bridges = 0
    for ns in sorted(ours(design_tag(d.id), kernel_lists()[0])):
        links = json.loads(subprocess.run(["ip", "-n", ns, "-d", "-j", "link", "show", "type", "bridge"],
                                          capture_output=True, text=True, check=True).stdout or "[]")
        for link in links:
            bridges += 1
            assert link["linkinfo"]["info_data"]["ageing_time"] >= 24 * 3600 * 100, (ns, link["ifname"])
    assert bridges >= 4


def test_teardown_leaves_no_namespace_link_or_process(lab):
    before_ns, before_links = kernel_lists()
    d = campus(vms_per_host=2, hosts=2)
    lab.up(d)
    server = lab.endpoint(d, "h1v0").start(["iperf3", "-s", "-p", "5301"])
    time.sleep(0.2)
    pid = int(subprocess.run(["pgrep", "-f", "iperf3 -s -p 5301"], capture_output=True, text=True).stdout.split()[0])
    mid_ns, _ = kernel_lists()
    assert len(ours(design_tag(d.id), mid_ns)) == 4 + 2 + 2
    results = lab.teardown(d.id)
    assert results and all(r.ok for r in results)
    after_ns, after_links = kernel_lists()
    assert ours(design_tag(d.id), after_ns) == set()
    assert not ours(design_tag(d.id), after_ns - before_ns)
    assert not {name for name in after_links - before_links if name[:1] in "nbuqpgkijtv"}
    server.wait(5)                                      # the probe inside the lab was stopped (no timeout)
    assert not Path(f"/proc/{pid}").exists()
    assert not (Path(lab.state_dir) / f"{design_tag(d.id)}.json").exists()


def test_a_design_the_lab_cannot_build_is_refused_before_anything_exists(lab, tmp_path):
    d = looped()
    before, _ = kernel_lists()
    with pytest.raises(Unsupported) as err:
        lab.plan(d)
    assert "loop" in str(err.value)
    after, _ = kernel_lists()
    assert ours(design_tag(d.id), after) == set() and not list((tmp_path / "state").glob("*"))


def test_endpoint_streams_lines_and_pins_the_cpu(lab, tmp_path):
    d = campus(vms_per_host=1, hosts=1)
    lab.up(d)
    ep = lab.endpoint(d, "h0v0")
    assert ep.address() == "10.10.0.10" and ep.has_program("iperf3") and not ep.has_program("no-such-prog-x")
    # lines stream: "two" waits (10 s at most) for a file this test makes only once it has read "one"
    flag = tmp_path / "one-was-read"
    cmd = ep.start(["sh", "-c", f"echo one; for i in $(seq 200); do [ -e {flag} ] && break; sleep 0.05; done; "
                                f"[ -e {flag} ] && echo two after one || echo two before one"])
    lines = []
    for line in cmd.lines():
        lines.append(line)
        flag.touch()
    assert lines == ["one", "two after one"]
    assert cmd.wait(5) == 0
    pinned = ep.start(["grep", "Cpus_allowed_list", "/proc/self/status"], cpu=0)
    assert list(pinned.lines()) == ["Cpus_allowed_list:\t0"]
    netns = ep.start(["ip", "-br", "addr", "show", "eth0"])
    assert "10.10.0.10/16" in " ".join(netns.lines())


def test_routed_firewall_filters_by_its_rules(lab):
    d = firewalled(ForwardMode.ROUTED)
    lab.up(d)
    assert ping(lab, d, "a", "10.2.0.3")
    for port, expect in ((5201, 0), (5202, 1)):
        server = lab.endpoint(d, "b").start(["iperf3", "-s", "-1", "-p", str(port)])
        time.sleep(0.3)
        client = lab.endpoint(d, "a").start(["iperf3", "-c", "10.2.0.3", "-p", str(port), "-t", "1",
                                             "--connect-timeout", "1000"])
        list(client.lines())
        assert (client.wait(15) != 0) == bool(expect), client.stderr()
        server.terminate()


@pytest.mark.parametrize("promiscuous", [True, False])
def test_bridged_firewall_bridges_only_with_the_security_policy(lab, promiscuous):
    d = firewalled(ForwardMode.BRIDGED, promiscuous=promiscuous)
    lab.up(d)
    assert ping(lab, d, "a", "10.1.0.3") is promiscuous


@pytest.mark.parametrize("mode,hairpin,reach", [
    (MacvtapMode.VEPA, False, False), (MacvtapMode.VEPA, True, True),
    (MacvtapMode.PRIVATE, True, False), (MacvtapMode.BRIDGE, False, True)])
def test_macvtap_modes(lab, mode, hairpin, reach):
    d = macvtap(mode, hairpin)
    lab.up(d)
    assert ping(lab, d, "g1", "10.5.0.2") is reach


def test_hosted_nat_lets_guests_out_and_nothing_in(lab):
    d = hosted_nat()
    lab.up(d)
    assert ping(lab, d, "v1", "192.168.1.50")             # masqueraded onto the LAN through the pNIC
    assert not ping(lab, d, "ph", "192.168.100.10")       # no port forwarding
    assert not ping(lab, d, "v1", "192.168.50.10")        # host-only stays in the host


def test_a_patch_joins_two_linux_bridges(lab):
    d = kvm_patch()
    lab.up(d)
    assert ping(lab, d, "p1", "10.9.0.2")


def test_vms_on_br_int_reach_the_network_through_the_patch_to_br_phys_in_every_vlan(lab):
    """OpenStack: an untagged patch port trunks every VLAN, so each VLAN of br-int leaves through eth0."""
    d = openstack()
    engine = Engine(d)
    assert engine.predict("o10", "s10").verdict is Verdict.VIA_PHYSICAL
    lab.up(d)
    assert ping(lab, d, "o10", "10.8.10.9")
    assert ping(lab, d, "o20", "10.8.20.9")
    assert ping(lab, d, "s20", "10.8.20.1")


SHIM = textwrap.dedent("""\
    #!/bin/sh
    # an `ip` that stalls on per-namespace batches, so a deploy can be killed halfway
    case " $* " in *" -n "*) sleep 30;; esac
    exec {real} "$@"
""")


def _deploy_in_background(design_file: Path, state: Path, shim_dir: Path) -> subprocess.Popen:
    script = textwrap.dedent(f"""\
        from vnetbench.model import load
        from vnetbench_local import LocalLabBackend
        b = LocalLabBackend({{"mode": "root", "state_dir": {str(state)!r}}})
        d = load({str(design_file)!r})
        b.apply(b.plan(d))
    """)
    env = {**os.environ, "PATH": f"{shim_dir}:{os.environ['PATH']}"}
    return subprocess.Popen([sys.executable, "-c", script], env=env, start_new_session=True)


def _kill_when_halfway(proc: subprocess.Popen, state_file: Path, tag: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ns, _ = kernel_lists()
        if state_file.exists() and json.loads(state_file.read_text())["inflight"] and ours(tag, ns):
            break
        time.sleep(0.05)
    time.sleep(0.3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def test_a_deploy_killed_halfway_is_cleaned_by_the_next_up_and_down(lab, tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    real_ip = subprocess.run(["sh", "-c", "command -v ip"], capture_output=True, text=True).stdout.strip()
    (shim / "ip").write_text(SHIM.format(real=real_ip))
    (shim / "ip").chmod(0o755)
    d = campus(vms_per_host=3, hosts=2)
    tag = design_tag(d.id)
    lab.deployed.append(d.id)
    path = tmp_path / "campus.vnet.yaml"
    save(d, path)
    state_file = Path(lab.state_dir) / f"{tag}.json"

    _kill_when_halfway(_deploy_in_background(path, Path(lab.state_dir), shim), state_file, tag)
    ns, _ = kernel_lists()
    assert ours(tag, ns), "the killed deploy should have left namespaces behind"
    assert "interrupted" in " ".join(dep.detail for dep in lab.deployments())
    plan = lab.plan(d)
    assert any("interrupted" in c.description or "did not finish" in c.description for c in plan.changes)
    results = lab.apply(plan)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert lab.plan(d).empty
    assert ping(lab, d, "h0v0", "10.10.1.10") and ping(lab, d, "h0v1", "10.10.0.10")

    lab.teardown(d.id)
    _kill_when_halfway(_deploy_in_background(path, Path(lab.state_dir), shim), state_file, tag)
    results = lab.teardown(d.id)
    assert results and all(r.ok for r in results)
    ns, _ = kernel_lists()
    assert ours(tag, ns) == set() and not state_file.exists()


def test_an_edit_killed_halfway_is_finished_by_the_next_up(lab, tmp_path):
    shim = tmp_path / "shim"
    shim.mkdir()
    real_ip = subprocess.run(["sh", "-c", "command -v ip"], capture_output=True, text=True).stdout.strip()
    (shim / "ip").write_text(SHIM.format(real=real_ip))
    (shim / "ip").chmod(0o755)
    d = campus(vms_per_host=2, hosts=2)
    tag = design_tag(d.id)
    lab.up(d)
    d.switches[0].portgroups[0].vlan = 20                # h0v0 moves to VLAN 20; killed while applying
    path = tmp_path / "edited.vnet.yaml"
    save(d, path)
    state_file = Path(lab.state_dir) / f"{tag}.json"
    _kill_when_halfway(_deploy_in_background(path, Path(lab.state_dir), shim), state_file, tag)
    plan = lab.plan(d)
    assert plan.changes and not any(c.kind == "netns" for c in plan.changes)     # only what was in flight
    results = lab.apply(plan)
    assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    assert lab.plan(d).empty
    assert ping(lab, d, "h0v0", "10.20.1.11") is False and ping(lab, d, "h1v0", "10.10.0.1")
