"""Run a test between two endpoints: server up, wait until it listens, client, live samples, summary, cleanup.

The runner talks to endpoints only through the backend contract (``start``, ``has_program``, ``address``),
so the local lab, vSphere and KVM share it. It stops only the commands it started. A probe that fails is
reported with the reason (``ProbeFailure.reason``: not-installed, no-route, refused, timeout, failed) and a
sentence for the user, so a broken path never looks like an empty plot.
"""

from __future__ import annotations

import hashlib
import platform
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from ..backends import CancelToken, Endpoint, ProgressFn, RunningCommand, sockperf_inet6
from ..backends.locking import LockFile, private_dir
from ..backends.sockperf_inet6 import ShimUnavailable
from .probes import iperf3, sockperf
from .result import Measurement, RunStatus, Sample
from .spec import TestKind, TestSpec

SampleFn = Callable[[Sample], None]

#: How long a server may take to print that it listens.
READY_TIMEOUT_S = 5.0
#: Slack after a client's planned run time before it counts as hung (connect timeouts, sockperf warm-up).
OVERRUN_S = 15.0


class ProbeFailure(Exception):
    """Why a probe produced no result; ``reason`` is a short code the GUI and ``compare`` use."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class _Cancelled(Exception):
    pass


def classify(text: str, tool: str, src: str, dst: str, address: str) -> ProbeFailure:
    """Turn a tool's error output into a reason and a sentence that says what to check."""
    low = text.lower()
    where = f"{src} -> {dst} ({address})"
    if "connection refused" in low:
        return ProbeFailure("refused", f"{tool}: connection refused on {where}: nothing listens there, "
                                       "or a firewall on the path rejects the connection")
    if "network is unreachable" in low or "no route to host" in low:
        return ProbeFailure("no-route", f"{tool}: no route from {src} to {address}: check its address, "
                                        "gateway and the router on the path")
    if "timed out" in low or "timeout" in low:
        return ProbeFailure("timeout", f"{tool}: no answer on {where}: packets are dropped on the way "
                                       "(blocked by a firewall, or the path is broken)")
    detail = (iperf3.error_of(text) or sockperf.error_of(text)
              or next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "no output"))
    return ProbeFailure("failed", f"{tool} failed on {where}: {detail}")


@dataclass
class _Watched:
    """A started command whose output lines a thread forwards to the runner's queue."""

    name: str
    cmd: RunningCommand
    lines: list[str] = field(default_factory=list)
    done: bool = False

    def follow(self, sink: queue.Queue) -> None:
        def pump() -> None:
            try:
                for line in self.cmd.lines():
                    sink.put((self, line.rstrip("\n")))
            finally:
                sink.put((self, None))
        threading.Thread(target=pump, name=f"vnetbench-{self.name}", daemon=True).start()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def output(self) -> str:
        """stdout and, once it ended, stderr: what to classify an error from."""
        err = ""
        if self.done:
            try:
                err = self.cmd.stderr()
            except Exception:  # noqa: BLE001 - an endpoint that cannot return stderr still has stdout
                err = ""
        return self.text + "\n" + err


class Runner:
    """One measurement: ``Runner(spec, src, dst, ...).run()`` returns a ``Measurement`` whatever happens."""

    def __init__(self, spec: TestSpec, src: Endpoint, dst: Endpoint, on_sample: SampleFn | None = None,
                 cancel: CancelToken | None = None, progress: ProgressFn | None = None) -> None:
        spec.check()
        self.spec, self.src, self.dst = spec, src, dst
        self.on_sample = on_sample
        self.cancel = cancel or CancelToken()
        self.progress = progress
        self.samples: list[Sample] = []
        self.commands: list[str] = []
        self._started: list[_Watched] = []
        self._queue: queue.Queue = queue.Queue()
        self._done_s = 0.0

    # --- entry point -------------------------------------------------------------------------------------

    def run(self) -> Measurement:
        """Run the test once; failures and cancellation end in the returned status, never raised."""
        tool = self.spec.kind.tool
        started = time.time()
        status, error, summary = RunStatus.OK, "", {}
        try:
            self._check_programs(tool)
            summary = self._dispatch()
        except _Cancelled:
            status, error = RunStatus.CANCELLED, "cancelled by the user"
        except ProbeFailure as exc:
            status, error, summary = RunStatus.FAILED, str(exc), {"failure": exc.reason}
        finally:
            self._stop_all()
        return Measurement(spec=self.spec, tool=tool, commands=self.commands, samples=self.samples,
                           summary=summary, started=started, ended=time.time(), status=status, error=error,
                           env=environment(self.src, tool))

    def _dispatch(self) -> dict[str, Any]:
        spec = self.spec
        if spec.kind is TestKind.RR:
            return self._rr()
        if spec.kind is TestKind.SWEEP:
            points = []
            for size in spec.sizes:
                result = self._iperf3(length=size, series=str(size))
                points.append({"size": size, "throughput_mbps": result["throughput_mbps"]})
            return {"points": points, "peak_mbps": max(p["throughput_mbps"] for p in points),
                    "smallest_mbps": points[0]["throughput_mbps"]}
        if spec.kind is TestKind.PPS:
            return self._iperf3(udp=True, rate_mbps=None, length=spec.payload, series="pps")
        udp = spec.protocol == "udp"
        return self._iperf3(udp=udp, rate_mbps=spec.udp_rate_mbps if udp else None, series="throughput")

    # --- probes ------------------------------------------------------------------------------------------

    def _check_programs(self, tool: str) -> None:
        for ep in (self.src, self.dst):
            if not ep.has_program(tool):
                raise ProbeFailure("not-installed", f"{tool} is not installed on {ep.name}: install it there "
                                                    f"(Debian: apt-get install {tool})")

    def _iperf3(self, *, udp: bool = False, rate_mbps: float | None = None, length: int | None = None,
                series: str) -> dict[str, Any]:
        spec = self.spec
        server, port = self._start_server("iperf3", iperf3.server_argv, iperf3.is_ready)
        address = self.dst.address_in(spec.family)
        client = self._start(self.src, "iperf3 client", iperf3.client_argv(
            address, port, spec.duration, streams=spec.streams, reverse=spec.reverse, udp=udp,
            rate_mbps=rate_mbps, length=length))
        receiving = client if spec.reverse else server
        live = iperf3.LiveIntervals(spec.streams)
        offset = self._done_s

        def on_line(who: _Watched, line: str) -> None:
            if who is not receiving:
                return
            iv = live.feed(line)
            if iv is None:
                return
            value = (iv.datagrams or 0) / iv.seconds if spec.kind is TestKind.PPS else iv.mbps
            self._sample(Sample(offset + iv.end, value, series))

        self._follow_until_done(client, on_line, spec.duration)
        self._drain(server, on_line, 2.0)
        text = client.text
        summary = iperf3.parse_summary(text, spec.streams)
        if summary is None or client.cmd.wait(1) != 0:
            raise classify(client.output() + "\n" + server.output(), "iperf3", self.src.name, self.dst.name,
                           address)
        self._done_s = offset + spec.duration
        return summary.to_dict(udp, payload=length if spec.kind is TestKind.PPS else None)

    def _rr(self) -> dict[str, Any]:
        spec = self.spec
        address = self.dst.address_in(spec.family)
        # sockperf 3.7 takes IPv4 only: over IPv6 it is given a placeholder that a preloaded shim maps to ``address``
        inet6 = spec.family == 6
        server_shim, client_shim = (self._inet6_shim(self.dst), self._inet6_shim(self.src)) if inet6 else ("", "")
        given = sockperf_inet6.PLACEHOLDER if inet6 else address

        def wrap(argv: list[str], shim: str) -> list[str]:
            return sockperf_inet6.wrap(argv, address, shim) if shim else argv

        server, port = self._start_server("sockperf", lambda p: wrap(sockperf.server_argv(given, p), server_shim),
                                          sockperf.is_ready, cpu=spec.cpu)
        client = self._start(self.src, "sockperf client",
                             wrap(sockperf.client_argv(given, port, spec.duration, spec.message_size), client_shim),
                             cpu=spec.cpu)
        live = sockperf.LiveActivity()
        elapsed = [0.0]

        def on_line(who: _Watched, line: str) -> None:
            if who is client and (act := live.feed(line)):
                elapsed[0] += act.seconds
                self._sample(Sample(elapsed[0], act.rtt_us, "rtt"))

        self._follow_until_done(client, on_line, spec.duration + 3.0, started=sockperf.is_started)
        summary = sockperf.parse_summary(client.text)
        if summary is None:
            raise classify(client.output() + "\n" + server.output(), "sockperf", self.src.name, self.dst.name,
                           address)
        summary["message_size"] = spec.message_size
        summary["pinned_cpu"] = spec.cpu if spec.cpu is not None else -1
        return summary

    @staticmethod
    def _inet6_shim(ep: Endpoint) -> str:
        """The shim as ``ep`` finds it (``Endpoint.sockperf_inet6``), checked to be there."""
        try:
            library = ep.sockperf_inet6()
        except ShimUnavailable as exc:
            raise ProbeFailure("not-installed", str(exc)) from None
        if not ep.has_program(library):
            raise ProbeFailure("not-installed", f"round trips over IPv6 preload vnetbench's shim for sockperf 3.7 "
                                                f"(IPv4 only), which {ep.name} does not have at {library}: deploy "
                                                "it again with a backend that puts it there (KVM's probe image "
                                                "does), or measure round trips with family 4")
        return library

    # --- plumbing ----------------------------------------------------------------------------------------

    def _start(self, ep: Endpoint, name: str, argv: list[str], cpu: int | None = None) -> _Watched:
        self._check_cancel()
        self.commands.append(f"[{ep.name}] " + " ".join(argv) + (f"  (cpu {cpu})" if cpu is not None else ""))
        watched = _Watched(name, ep.start(argv, cpu=cpu))
        self._started.append(watched)
        watched.follow(self._queue)
        return watched

    def _start_server(self, tool: str, argv: Callable[[int], list[str]], ready: Callable[[str], bool],
                      cpu: int | None = None) -> tuple[_Watched, int]:
        """Start a server on a random port and wait until it listens; a port taken meanwhile gets another."""
        tries = 0
        while True:
            tries += 1
            port = random.randint(20000, 60999)
            server = self._start(self.dst, f"{tool} server", argv(port), cpu=cpu)
            try:
                self._wait_ready(server, ready, tool)
                return server, port
            except ProbeFailure as exc:
                if "in use" not in str(exc) or tries == 3:
                    raise

    def _next(self, timeout: float) -> tuple[_Watched, str | None] | None:
        try:
            who, line = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is None:
            who.done = True
        else:
            who.lines.append(line)
        return who, line

    def _wait_ready(self, server: _Watched, ready: Callable[[str], bool], tool: str) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            self._check_cancel()
            item = self._next(0.1)
            if item is None or item[0] is not server:
                continue
            if item[1] is None:
                raise classify(server.output(), f"{tool} server", self.src.name, self.dst.name, "server start")
            if ready(item[1]):
                return
        raise ProbeFailure("timeout", f"the {tool} server on {self.dst.name} did not start listening within "
                                      f"{READY_TIMEOUT_S:g} s")

    def _follow_until_done(self, client: _Watched, on_line: Callable[[_Watched, str], None],
                           planned_s: float, started: Callable[[str], bool] | None = None) -> None:
        """Feed the lines to ``on_line`` until ``client`` ends, reporting progress on the probe's own clock: from
        the client's line ``started`` accepts (sockperf warms up for 2 s before it, and a bar timed from the
        launch ran 2 s ahead of the live curve), or from the launch when ``started`` is None."""
        launched = time.monotonic()
        start = launched if started is None else None
        deadline = launched + planned_s + OVERRUN_S
        last_progress = 0.0
        while not client.done:
            self._check_cancel()
            now = time.monotonic()
            if now > deadline:
                raise ProbeFailure("timeout", f"{client.name} on {self.src.name} -> {self.dst.name} did not "
                                              f"finish within {planned_s + OVERRUN_S:g} s")
            if self.progress and now - last_progress >= 0.2:
                last_progress = now
                self._report(min(now - start, planned_s) if start is not None else 0.0, warming=start is None)
            item = self._next(0.1)
            if item and item[1] is not None:
                if start is None and started is not None and item[0] is client and started(item[1]):
                    start = time.monotonic()
                on_line(item[0], item[1])

    def _drain(self, cmd: _Watched, on_line: Callable[[_Watched, str], None], seconds: float) -> None:
        """Read what ``cmd`` still prints (a server's last intervals) until it ends or ``seconds`` pass."""
        deadline = time.monotonic() + seconds
        while not cmd.done and time.monotonic() < deadline:
            item = self._next(0.1)
            if item and item[1] is not None:
                on_line(item[0], item[1])

    def _sample(self, sample: Sample) -> None:
        self.samples.append(sample)
        if self.on_sample:
            self.on_sample(sample)

    def _report(self, step_elapsed: float, warming: bool = False) -> None:
        total = self.spec.total_seconds
        done = min(self._done_s + step_elapsed, total)
        last = self.samples[-1] if self.samples else None
        figure = f", {last.value:.6g} {self.spec.kind.unit}" if last else ""
        assert self.progress is not None
        self.progress(int(1000 * done / total), 1000,
                      "warming up…" if warming else f"{done:.1f} s of {total:g} s{figure}")

    def _check_cancel(self) -> None:
        if self.cancel.cancelled:
            raise _Cancelled()

    def _stop_all(self) -> None:
        """Stop every command this runner started and nothing else."""
        for watched in reversed(self._started):
            try:
                watched.cmd.wait(0)
            except TimeoutError:
                watched.cmd.terminate()
                try:
                    watched.cmd.wait(3)
                except TimeoutError:
                    pass
        self._started.clear()


def measure_locks(deployments: Iterable[str]) -> ExitStack:
    """Each deployment's measure lock (``Backend.deployment``), held until the returned stack is closed, so
    two measurements never share a lab unnoticed, whether from the CLI or the designer. ``Busy`` (naming the
    holder's PID) when another measurement holds one of them; ``OSError`` when the user's private folder
    (where the locks live) cannot be made."""
    locks = ExitStack()
    try:
        folder = private_dir()
        for deployment in sorted(set(deployments)):
            digest = hashlib.sha1(deployment.encode()).hexdigest()[:16]
            locks.enter_context(LockFile(folder / f"measure-{digest}.lock", wait=1.0))
    except BaseException:
        locks.close()
        raise
    return locks


def measure(spec: TestSpec, src: Endpoint, dst: Endpoint, on_sample: SampleFn | None = None,
            cancel: CancelToken | None = None, progress: ProgressFn | None = None) -> Measurement:
    """Run ``spec`` from ``src`` to ``dst``; see ``Runner``."""
    return Runner(spec, src, dst, on_sample, cancel, progress).run()


def _capture(ep: Endpoint, argv: list[str]) -> str:
    try:
        cmd = ep.start(argv)
        text = "\n".join(cmd.lines())
        cmd.wait(3)
        return text.strip()
    except Exception:  # noqa: BLE001 - environment facts are best effort; a run is valid without them
        return ""


def environment(ep: Endpoint, tool: str) -> dict[str, str]:
    """Facts that explain a figure later: kernel and CPU where the probe ran, the tool's version."""
    version = _capture(ep, [tool, "--version"]).splitlines()
    kernel = _capture(ep, ["uname", "-r"]) or platform.release()
    cpu = ""
    info = _capture(ep, ["cat", "/proc/cpuinfo"])
    for line in info.splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return {"kernel": kernel, "cpu": cpu or platform.processor(), "cpus": str(info.count("processor\t:") or ""),
            "tool": tool, "tool_version": version[0] if version else "", "endpoint": ep.name,
            "controller": platform.node(), "python": platform.python_version()}
