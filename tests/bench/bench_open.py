"""Opening a large design in the designer, as a person meets it: how soon it is usable, and how long the window
ever stops answering.

Opens generated designs (``generate.generate``, 20 VMs a host, saved as .vnet.json) one after the other in one
shown MainWindow, with the GUI-thread collector and the interpreter-lock switch interval the designer runs with
(``app.main``), through File > Open's code path (``MainWindow.open_file``): 2,000 VMs, 10,000 VMs, then 2,000
again right after the 10,000. For each:

- usable: seconds from the open until the whole design is drawn and fitted (``Opener.opened``), and the CPU
  seconds the process (all threads: reading, laying out, the docks' prediction) with its child processes (the
  designer reads, lays out and validates a large design in one, ``gui.offload``) and the GUI thread used for it;
- stall: the longest the event loop went without running a 10 ms timer, as wall time, as GUI-thread CPU time,
  and as the CPU time the whole process (every thread) used meanwhile, while opening and after it, until the
  matrix dock shows the matrix (the docks' results arriving). The last is what the stall lasts on an idle
  machine at most: the GUI thread computing, or waiting for the interpreter lock (GIL) that another thread of
  the process holds while it computes; a loaded machine stretches the wall time but not it;
- matrix: the longest GUI-thread CPU time of one matrix-dock call (taking a result, showing it).

Targets (issues 29 and 32), judged on CPU because the machine is shared: no stall over 100 ms of process CPU
(so none over 100 ms of wall time on an idle machine), no matrix-dock call over 50 ms; 10,000 VMs usable within 10 s of process CPU. Run under Xvfb or offscreen:
``QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_open.py [VMS ...]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from generate import generate  # noqa: E402
from vnetbench.model import save  # noqa: E402

SETTLE = 5.0   # seconds watched at least after the design is drawn: the docks' results arrive then
SETTLE_LIMIT = 120.0   # and until the matrix is shown, within this
STALL_TARGET, MATRIX_TARGET, USABLE_CPU_TARGET = 0.100, 0.050, 10.0


class Ticks:
    """A 10 ms timer on the GUI thread: the gaps between its ticks are how long the window did not answer."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.process: list[float] = []
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)

    def tick(self) -> None:
        self.wall.append(time.perf_counter())
        self.cpu.append(time.thread_time())
        self.process.append(time.process_time())

    def start(self) -> None:
        self.wall, self.cpu, self.process = [], [], []
        self.tick()
        self.timer.start()

    def worst(self) -> tuple[float, float, float]:
        """The longest gap between ticks in wall time, in GUI-thread CPU time, and in process CPU time."""
        self.tick()
        return tuple(max((b - a for a, b in zip(times, times[1:])), default=0.0)   # type: ignore[return-value]
                     for times in (self.wall, self.cpu, self.process))


def time_calls(cls: type, names: list[str], record: list[float]) -> None:
    """Record the GUI-thread CPU time of every call of ``cls``'s methods ``names``."""
    for name in names:
        original: Callable = getattr(cls, name)

        def timed(self, *args, _original=original, **kwargs):
            started = time.thread_time()
            try:
                return _original(self, *args, **kwargs)
            finally:
                record.append(time.thread_time() - started)
        setattr(cls, name, timed)


def children_cpu() -> float:
    """CPU seconds used so far by this process's child processes, those still running included."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = os.times().children_user + os.times().children_system   # those that ended (and were waited for)
    for child in multiprocessing.active_children():
        try:
            fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks   # utime, stime
    return total


def wait(app: QApplication, until: Callable[[], bool], limit: float) -> None:
    started = time.perf_counter()
    while not until() and time.perf_counter() - started < limit:
        app.processEvents()
        time.sleep(0.002)


def measure(app: QApplication, window, path: Path, matrix_calls: list[float]) -> dict[str, float]:
    done: list[float] = []
    window.opener.opened.connect(lambda *_: done.append(time.perf_counter()))
    ticks = Ticks()
    matrix_calls.clear()
    start = time.perf_counter()
    cpu, gui = time.process_time() + children_cpu(), time.thread_time()
    ticks.start()
    window.open_file(str(path))
    wait(app, lambda: bool(done), 300)
    usable = (done[0] if done else float("nan")) - start
    cpu, gui = time.process_time() + children_cpu() - cpu, time.thread_time() - gui
    open_wall, open_cpu, open_process = ticks.worst()
    ticks.start()
    from vnetbench.gui.panels.matrix import LivePrediction
    prediction, settled = LivePrediction.of(window.workbench), time.perf_counter() + SETTLE
    wait(app, lambda: time.perf_counter() > settled and not prediction.busy and prediction.latest is not None, SETTLE_LIMIT)
    ticks.timer.stop()
    settle_wall, settle_cpu, settle_process = ticks.worst()
    window.opener.opened.disconnect()
    return {"usable": usable, "cpu": cpu, "gui": gui, "open_wall": open_wall, "open_cpu": open_cpu,
            "open_process": open_process, "settle_wall": settle_wall, "settle_cpu": settle_cpu,
            "settle_process": settle_process, "matrix": max(matrix_calls, default=0.0)}


def main() -> int:
    app = QApplication.instance() or QApplication([])
    from vnetbench.gui.app import share_the_interpreter
    from vnetbench.gui.collector import GuiThreadCollector
    from vnetbench.gui.mainwindow import MainWindow
    from vnetbench.gui.panels.matrix import LivePrediction, MatrixDock

    matrix_calls: list[float] = []
    time_calls(MatrixDock, ["_updated", "_started", "_progress"], matrix_calls)
    time_calls(LivePrediction, ["_computed", "_design_changed", "_work"], matrix_calls)
    GuiThreadCollector(app)
    share_the_interpreter()
    parser = argparse.ArgumentParser(description="Open generated designs one after the other in one designer "
                                                 "window; print time to usable and the longest stalls.")
    parser.add_argument("vms", nargs="*", type=int, default=[2000, 10_000, 2000],
                        help="VM counts to open, in order (default: 2000 10000 2000)")
    sizes = parser.parse_args().vms
    window = MainWindow()
    window.ask_unsaved = lambda: None
    window.resize(1400, 900)
    window.show()
    wait(app, lambda: False, 0.5)
    print(f"Opening large designs in one designer window, one after the other (issues 29, 32); load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs. Wall clock is noisy on a shared machine: judge on CPU.")
    print(f"{'VMs':>7}{'usable s':>10}{'cpu s':>8}{'gui cpu s':>11}{'stall open':>26}{'stall after':>26}"
          f"{'matrix cpu':>12}")
    print(f"{'':>7}{'wall':>10}{'all':>8}{'':>11}{'wall / gui / process cpu':>26}{'wall / gui / process cpu':>26}"
          f"{'ms':>12}")
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, vms in enumerate(sizes):
            path = Path(tmp, f"g{vms}-{n}.vnet.json")
            save(generate(vms, max(2, vms // 20)), path)
            r = measure(app, window, path, matrix_calls)
            after = " (after the previous)" if n else ""
            print(f"{vms:>7}{r['usable']:>10.2f}{r['cpu']:>8.2f}{r['gui']:>11.2f}"
                  f"{r['open_wall']:>10.3f} / {r['open_cpu']:.3f} / {r['open_process']:.3f}"
                  f"{r['settle_wall']:>10.3f} / {r['settle_cpu']:.3f} / {r['settle_process']:.3f}"
                  f"{r['matrix'] * 1000:>12.1f}{after}", flush=True)
            stall = max(r["open_process"], r["settle_process"])
            if stall > STALL_TARGET:
                failed.append(f"{vms} VMs: a stall of {stall * 1000:.0f} ms process CPU")
            if r["matrix"] > MATRIX_TARGET:
                failed.append(f"{vms} VMs: a {r['matrix'] * 1000:.0f} ms matrix-dock call")
            if vms >= 10_000 and r["cpu"] > USABLE_CPU_TARGET:
                failed.append(f"{vms} VMs: usable after {r['cpu']:.1f} s CPU")
    window.close()
    print("MISSED TARGETS: " + "; ".join(failed) if failed else "all targets met")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
