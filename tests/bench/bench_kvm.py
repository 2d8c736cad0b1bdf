"""Benchmark the KVM backend on a private libvirtd + QEMU (TCG) + userspace OVS (tests/backends/kvm/kvmhost.py),
the way a user meets it: whole ``vnetbench`` CLI processes, start-up included.

- deploy and tear down 2, 4 and 8 guests (``vnetbench deploy`` / ``teardown``), and QEMU's memory per guest;
- the time from ``apply`` to the first iperf3 sample between two fresh guests;
- ``vnetbench import`` of a libvirt host with 50 defined domains (libvirt's test driver, from a node file).

With ``--calibrate`` it instead measures the seed tables on QEMU and writes the calibration profile
resources/calibration/kvm-qemu-tcg.yaml: TCP throughput between two guests on one bridge for every NIC model
(seed 004; all pairs up at once, measured in interleaved rounds with the other pairs paused), across two emulated 1 Gbit/s pNICs, and the
small-UDP packet rate of a sender on tap + bridge versus macvtap (seed 001). Each figure is the median of the
rounds and keeps their spread (lowest, highest): one run per model ranked them differently run to run. Run as root: .venv/bin/python tests/bench/bench_kvm.py [--calibrate]
The machine is shared and TCG is an emulator: read the figures as this machine's, not a hypervisor's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "backends" / "kvm"))

import yaml  # noqa: E402

from kvm_designs import across_pnics, all_models, bridge_guests, udp_senders  # noqa: E402
from kvmhost import KvmHost  # noqa: E402
from vnetbench.model import NicType, Topology, save  # noqa: E402
from vnetbench_kvm import KvmBackend  # noqa: E402

CLI = [sys.executable, "-m", "vnetbench"]
SEED_004_MODELS = (NicType.VLANCE, NicType.E1000, NicType.E1000E, NicType.VMXNET3, NicType.VIRTIO, NicType.RTL8139)


def _set(settings: dict[str, str]) -> list[str]:
    return [x for k, v in settings.items() for x in ("--set", f"{k}={v}")]


def _timed(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed: {proc.stderr.strip()[-400:]}")
    return time.perf_counter() - start


def _qemu_rss_mib(host: KvmHost) -> list[float]:
    """Resident memory of every QEMU in the KVM host's network namespace."""
    ours = os.stat(f"/proc/{host.holder.pid}/ns/net").st_ino
    out = []
    for entry in os.listdir("/proc"):
        try:
            if not entry.isdigit() or os.stat(f"/proc/{entry}/ns/net").st_ino != ours:
                continue
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        if "qemu-system" in Path(f"/proc/{entry}/cmdline").read_text(errors="replace").split("\0")[0]:
            out.append(int(next(l for l in status.splitlines() if l.startswith("VmRSS:")).split()[1]) / 1024)
    return out


def _iperf(backend: KvmBackend, design: Topology, src: str, dst: str, extra: list[str], seconds: int) -> dict:
    """iperf3's ``end`` section; tried again (3 times) when the server was not listening yet (a guest just
    resumed or busy under TCG), which iperf3 -J reports in its JSON."""
    server = backend.endpoint(design, dst)
    client = backend.endpoint(design, src)
    for _ in range(3):
        srv = server.start(["iperf3", "-s", "-1", "-p", "5201"])
        time.sleep(1.0)
        cmd = client.start(["iperf3", "-c", server.address(), "-p", "5201", "-t", str(seconds), "-J", *extra])
        out = "\n".join(cmd.lines())
        code = cmd.wait(seconds + 60)
        srv.terminate()
        result = json.loads(out) if out.strip() else {"error": cmd.stderr().strip()}
        if code == 0 and "error" not in result:
            return result["end"]
        time.sleep(2.0)
    raise SystemExit(f"iperf3 {src} -> {dst} failed: {result.get('error') or cmd.stderr().strip()}")


def _first_sample(backend: KvmBackend, design: Topology, src: str, dst: str) -> float:
    """Seconds from now to iperf3's first interval line between ``src`` and ``dst``."""
    start = time.perf_counter()
    server = backend.endpoint(design, dst)
    srv = server.start(["iperf3", "-s", "-1", "-p", "5201"])
    time.sleep(0.5)
    cmd = backend.endpoint(design, src).start(["iperf3", "-c", server.address(), "-p", "5201", "-t", "3", "-i",
                                               "0.5", "--forceflush"])
    first = None
    for line in cmd.lines():
        if "bits/sec" in line and first is None:
            first = time.perf_counter() - start
    cmd.wait(60)
    srv.terminate()
    return first if first is not None else float("nan")


def bench(host: KvmHost, work: Path) -> None:
    settings = host.settings(accel="qemu")
    print("deploy / teardown through the CLI (TCG guests, 1 vCPU, 192 MiB each):")
    for count in (2, 4, 8):
        design = bridge_guests(NicType.VIRTIO, count)
        path = work / f"guests{count}.vnet.yaml"
        save(design, path)
        up = _timed([*CLI, "deploy", str(path), "--backend", "kvm", *_set(settings)])
        rss = _qemu_rss_mib(host)
        if count == 2:
            backend = KvmBackend(settings)
            backend.connect()
            sample = _first_sample(backend, design, design.vms[0].id, design.vms[1].id)
            backend.close()
            print(f"  apply to first iperf3 sample: {up:.1f} s deploy + {sample:.1f} s = {up + sample:.1f} s")
        down = _timed([*CLI, "teardown", str(path), "--backend", "kvm", *_set(settings)])
        per_guest = sum(rss) / len(rss) if rss else float("nan")
        print(f"  {count} guests: deploy {up:6.1f} s, teardown {down:5.1f} s, QEMU memory {per_guest:.0f} MiB "
              f"per guest (RSS, {len(rss)} QEMUs)")
    node = work / "host50.xml"
    domains = "".join(f"<domain type='qemu'><name>guest{i:02d}</name><memory>131072</memory><vcpu>1</vcpu>"
                      f"<os><type arch='x86_64'>hvm</type></os><devices><interface type='network'>"
                      f"<source network='lan'/><mac address='52:54:00:10:00:{i:02x}'/><model type='virtio'/>"
                      f"</interface></devices></domain>" for i in range(50))
    node.write_text(f"<node><network><name>lan</name><bridge name='br-lan'/><forward mode='bridge'/></network>"
                    f"{domains}</node>")
    out = work / "imported.vnet.yaml"
    took = _timed([*CLI, "import", "--backend", "kvm", "--set", f"uri=test://{node}", "-o", str(out)])
    print(f"import of a host with 50 domains (test driver, CLI process): {took:.2f} s")


def _rounds(measure, names: list[str], rounds: int) -> dict[str, list[float]]:
    """``measure(name)`` for every name, ``rounds`` times, interleaved (each round starts one name later), so a
    busy spell on the shared machine lands on every name alike rather than on one."""
    out: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            out[name].append(measure(name))
            print(f"  round {r + 1}/{rounds} {name:16} {out[name][-1]:10.1f}", flush=True)
    return out


def _only(host: KvmHost, running: list[str], domains: list[str]) -> None:
    """Pause every guest but ``running`` (a paused QEMU takes no CPU): the measured pair has the machine as it
    would with only itself deployed, while all pairs stay up for the next round."""
    import libvirt

    conn = libvirt.open(host.uri)
    try:
        for name in domains:
            dom = conn.lookupByName(name)
            state = dom.state()[0]
            if name in running and state == libvirt.VIR_DOMAIN_PAUSED:
                dom.resume()
            elif name not in running and state == libvirt.VIR_DOMAIN_RUNNING:
                dom.suspend()
    finally:
        conn.close()


def _figure(values: list[float], unit: str, digits: int = 1) -> dict:
    """The median of the rounds, and their spread (lowest, highest)."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return {unit: round(median, digits), "spread": [round(ordered[0], digits), round(ordered[-1], digits)],
            "rounds": [round(v, digits) for v in values]}


def calibrate(host: KvmHost, out: Path, rounds: int, seconds: int) -> None:
    settings = host.settings(accel="qemu")
    backend = KvmBackend(settings)
    backend.connect()
    figures: dict[str, dict] = {}
    try:
        design = all_models(SEED_004_MODELS)
        assert all(r.ok for r in backend.apply(backend.plan(design)))
        domains = {vm_id: g.domain for vm_id, g in backend.desired(design).guests.items()}

        def tcp(model: str) -> float:
            pair = [f"vm-{model}-0", f"vm-{model}-1"]
            _only(host, [domains[v] for v in pair], list(domains.values()))
            end = _iperf(backend, design, *pair, [], seconds)
            return end["sum_received"]["bits_per_second"] / 1e6

        for model, values in _rounds(tcp, [t.value for t in SEED_004_MODELS], rounds).items():
            figures[model] = _figure(values, "mbps")
        _only(host, list(domains.values()), list(domains.values()))
        backend.teardown(design.id)
        design = across_pnics()
        assert all(r.ok for r in backend.apply(backend.plan(design)))
        figures["across"] = _figure(_rounds(lambda _: tcp_across(backend, design, seconds), ["across"], rounds)
                                    ["across"], "mbps")
        backend.teardown(design.id)
        design = udp_senders()
        assert all(r.ok for r in backend.apply(backend.plan(design)))

        def pps(sender: str) -> float:
            end = _iperf(backend, design, f"vm-{sender}", "vm-receiver", ["-u", "-l", "64", "-b", "0"], seconds)
            return (end["sum"]["packets"] - end["sum"]["lost_packets"]) / end["sum"]["seconds"]

        for sender, values in _rounds(pps, ["tap-sender", "macvtap-sender"], rounds).items():
            figures[sender] = _figure(values, "pps", 0)
        backend.teardown(design.id)
    finally:
        backend.close()
    write_profile(figures, out, rounds, seconds)


def tcp_across(backend: KvmBackend, design: Topology, seconds: int) -> float:
    end = _iperf(backend, design, "vm-left", "vm-right", [], seconds)
    return end["sum_received"]["bits_per_second"] / 1e6


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def write_profile(figures: dict[str, dict], out: Path, rounds: int, seconds: int) -> None:
    published = yaml.safe_load((ROOT / "resources" / "calibration" / "published.yaml").read_text())
    src = "kvm-tcg"
    qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    vnic = {t: {"value": f["mbps"], "spread": f["spread"], "source": src} for t, f in figures.items()
            if "mbps" in f and t != "across"}
    vnic["flexible"] = {"value": figures["vlance"]["mbps"], "source": f"{src}: Flexible shows the guest a pcnet"}
    vnic["vmxnet2"] = {"value": figures["vmxnet3"]["mbps"], "source": "assumed: QEMU has no vmxnet2; vmxnet3's figure"}
    profile = {
        "name": "kvm-qemu-tcg",
        "description": "Measured on QEMU with TCG (software emulation, no hypervisor acceleration): what these "
                       "guests reach on this machine, not what KVM reaches. Use it for designs deployed with "
                       "--backend kvm and accel=qemu.",
        "sources": {src: f"vnetbench tests/bench/bench_kvm.py --calibrate, {time.strftime('%Y-%m-%d')}: {qemu}, "
                         f"accelerator qemu (TCG), host CPU {_cpu()} ({os.cpu_count()} cores, shared), probe "
                         f"guests (Debian kernel 6.1, 1 vCPU, 192 MiB), iperf3 3.12 TCP / UDP 64 B, {rounds} "
                         f"interleaved rounds of {seconds} s each: value is the median, spread the lowest and "
                         "highest round",
                    **{k: v for k, v in published["sources"].items() if k != "kvm-tcg"}},
        "vnic_mbps": vnic,
        # Under TCG the guests, not a 1 Gbit/s pNIC, are the bottleneck: the pNIC share stays the published one.
        "pnic_efficiency": published["pnic_efficiency"],
        "across_pnic_mbps": {"value": figures["across"]["mbps"], "spread": figures["across"]["spread"],
                             "source": f"{src}: virtio guests across two emulated 1 Gbit/s pNICs (the guests cap it)"},
        "forwarding_vm": published["forwarding_vm"],
        "latency_us": published["latency_us"],
        "packet_rate_pps": {
            "physical": published["packet_rate_pps"]["physical"],
            "tap_bridge": {"value": figures["tap-sender"]["pps"], "spread": figures["tap-sender"]["spread"],
                           "source": f"{src}: virtio guest on tap + bridge"},
            "macvtap": {"value": figures["macvtap-sender"]["pps"], "spread": figures["macvtap-sender"]["spread"],
                        "source": f"{src}: virtio guest on macvtap"},
            "raw_af_packet": published["packet_rate_pps"]["raw_af_packet"],
        },
    }
    header = ("# Calibration profile measured on QEMU/TCG by tests/bench/bench_kvm.py --calibrate (see sources).\n"
              "# TCG emulates every guest instruction: these are far below what the same guests reach under KVM.\n")
    out.write_text(header + yaml.safe_dump(profile, sort_keys=False, width=120))
    artifacts = Path(os.environ.get("VNETBENCH_ARTIFACTS") or ROOT / "test-artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / "kvm-calibration.json").write_text(json.dumps(figures, indent=2))
    print(f"wrote {out}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calibrate", action="store_true", help="measure the seed tables, write the profile")
    parser.add_argument("--out", type=Path, default=ROOT / "resources" / "calibration" / "kvm-qemu-tcg.yaml")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per figure (--calibrate)")
    parser.add_argument("--seconds", type=int, default=10, help="seconds per iperf3 run (--calibrate)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vnetbench-bench-kvm-") as tmp:
        host = KvmHost(Path(tmp) / "host")
        host.start()
        try:
            if args.calibrate:
                calibrate(host, args.out, args.rounds, args.seconds)
            else:
                bench(host, Path(tmp))
        finally:
            host.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
