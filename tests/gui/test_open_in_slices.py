"""Issues 29 and 32: opening a large design (and another right after it) never holds the GUI thread for long.

The file is read, laid out and pickled for the docks in a child process that a worker thread waits for, and
indexed in that worker thread; the canvas draws the design,
and removes the one it replaces, in slices with turns of the event loop between them. These tests check where
the work ran and that the event loop kept turning between slices; the times are ``tests/bench/bench_open.py``'s.
Also: the generated design's host tiles, as laid out and drawn, do not overlap.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from vnetbench.gui import opening
from vnetbench.model import save

pytestmark = pytest.mark.gui

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "bench"))
from generate import generate  # noqa: E402


@pytest.fixture(scope="module")
def designs(tmp_path_factory) -> tuple[Path, Path]:
    """Two different generated designs, each large enough to open in the background."""
    folder = tmp_path_factory.mktemp("slices")
    first, second = folder / "racks-3000.vnet.json", folder / "racks-2000.vnet.json"
    save(generate(3000, 150, seed=3), first)
    save(generate(2000, 100, seed=4), second)
    return first, second


def open_recording(win, qtbot, path: Path) -> list[str]:
    """Open ``path``, recording in order each drawing slice ("slice") and each tick of a 5 ms timer ("tick")."""
    events: list[str] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: events.append("tick"))
    win.opener.bar.valueChanged.connect(lambda *_: events.append("slice"))
    timer.start()
    try:
        with qtbot.waitSignal(win.opener.opened, timeout=240_000):
            assert win.open_file(str(path))
    finally:
        timer.stop()
        win.opener.bar.valueChanged.disconnect()
    return events


def test_reading_indexing_and_pickling_run_off_the_gui_thread_and_drawing_in_slices(window, qtbot, designs,
                                                                                    monkeypatch):
    win = window
    threads: dict[str, set[str]] = {"read": set(), "index": set(), "pickle": set()}
    read_by: list[object] = []

    def recorded(name, fn):
        def call(*args, **kwargs):
            threads[name].add(threading.current_thread().name)
            return fn(*args, **kwargs)
        return call

    def in_process(fn, *args, **kwargs):
        read_by.append(fn)
        return recorded("read", original)(fn, *args, **kwargs)
    original = opening.in_process
    monkeypatch.setattr(opening, "in_process", in_process)
    monkeypatch.setattr(opening, "Index", recorded("index", opening.Index))
    from vnetbench.gui import workbench as wb
    from vnetbench.model import document
    monkeypatch.setattr(document, "Index", recorded("index", document.Index))

    class Pickle:  # the workbench's snapshots: pickled in the worker, never again on the GUI thread
        HIGHEST_PROTOCOL = wb.pickle.HIGHEST_PROTOCOL
        dumps = staticmethod(recorded("pickle", wb.pickle.dumps))
        loads = staticmethod(wb.pickle.loads)
    monkeypatch.setattr(wb, "pickle", Pickle)

    events = open_recording(win, qtbot, designs[0])
    main = threading.main_thread().name
    assert read_by == [opening.read_and_lay_out], "the file was read and laid out in the child process"
    assert threads["read"] and main not in threads["read"]
    assert main not in threads["index"], "the id index was built again on the GUI thread"
    assert main not in threads["pickle"], "the docks' snapshot was pickled on the GUI thread"
    assert win.workbench.document.index.topology is win.workbench.topology
    assert len(win.workbench.topology.vms) == 3003
    slices = events.count("slice")
    assert slices >= 5, events
    first, last = events.index("slice"), len(events) - 1 - events[::-1].index("slice")
    between = events[first:last]
    assert between.count("tick") >= slices // 2, "the event loop turned between the slices"


def test_a_large_design_replaced_by_another_goes_a_slice_at_a_time(window, qtbot, designs):
    win = window
    open_recording(win, qtbot, designs[0])
    old = {key for key in win.scene.nodes if key.startswith("vm")}
    events = open_recording(win, qtbot, designs[1])
    assert events.count("slice") >= 5
    kept = {key for key in win.scene.nodes if key.startswith("vm")}
    assert len(kept) == 2000 and len(old - kept) == 1000  # the other design's extra VMs are gone
    assert all(vm.id in win.scene.nodes for vm in win.workbench.topology.vms)


def test_a_small_design_replacing_a_large_one_also_opens_in_the_background(window, qtbot, designs, tmp_path):
    from vnetbench import resources_dir

    win = window
    open_recording(win, qtbot, designs[1])
    small = tmp_path / "small.vnet.yaml"
    small.write_bytes((resources_dir() / "examples" / "esx-four-cases.vnet.yaml").read_bytes())
    assert small.stat().st_size < opening.BACKGROUND_BYTES
    events = open_recording(win, qtbot, small)
    assert "slice" in events and len(win.scene.nodes) < 200


def test_the_generated_designs_host_tiles_do_not_overlap(window, qtbot, designs):
    """Issue 29: hosts overlapped in the generated 2k and 10k layouts. Every top-level box, as drawn."""
    win = window
    open_recording(win, qtbot, designs[1])
    scene = win.scene
    tops = [item for key, item in scene.nodes.items() if key not in scene.inner]
    hosts = [item for item in tops if item.kind == "host"]
    assert len(hosts) == 100
    rects = [(item.oid, item.mapRectToScene(item.size)) for item in tops]
    overlapping = [(a, b) for i, (a, ra) in enumerate(rects) for b, rb in rects[i + 1:]
                   if ra.intersected(rb).width() > 0.5 and ra.intersected(rb).height() > 0.5]
    assert overlapping == []
