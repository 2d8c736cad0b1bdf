"""The measure plot (issue 29): the A/B legend names each run once, and the live curve keeps up with the progress
bar. Real sockperf on loopback (``loopback_backend``): its 2 s warm-up is what put the bar ahead of the curve."""

from __future__ import annotations

import shutil

import pytest

from canvas_helpers import artifacts
from loopback_backend import LoopbackBackend
from vnetbench import resources_dir
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.measure.ab import PAIR
from vnetbench.gui.workbench import Workbench
from vnetbench.measure import RunStatus, RunStore
from vnetbench.model import load

pytestmark = [pytest.mark.gui, pytest.mark.skipif(shutil.which("sockperf") is None, reason="needs sockperf")]


@pytest.fixture
def dock(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    design = load(resources_dir() / "examples" / "esx-four-cases.vnet.yaml")
    made = MeasureDock(Workbench(design), store=RunStore(tmp_path / "runs.sqlite"))
    made.connection_available(LoopbackBackend({}))  # what the window hands it from the deploy dock
    qtbot.addWidget(made)
    made.resize(1500, 700)
    made.show()
    qtbot.waitExposed(made)
    made.kind_box.setCurrentIndex(made.kind_box.findData("rr"))
    made.duration.setValue(1.0)
    return made


def vm(dock, name: str) -> str:
    return next(v.id for v in dock.workbench.topology.vms if v.name == name)


def test_the_ab_legend_names_each_run_and_its_pair_once(dock, qtbot):
    dock.set_pair(vm(dock, "web01"), vm(dock, "web02"))
    dock.ab.setChecked(True)
    dock.ab.set_mode(PAIR)
    for box, name in ((dock.ab.src_box, "web01"), (dock.ab.dst_box, "app01")):
        box.setCurrentIndex(box.findData(vm(dock, name)))
    with qtbot.waitSignal(dock.abFinished, timeout=60_000) as blocker:
        dock.start_ab()
    runs = blocker.args[0]
    assert [r.status for r in runs] == [RunStatus.OK, RunStatus.OK]
    entries = [label.text for _, label in dock.plot.getPlotItem().legend.items]
    assert len(entries) == 2 and len(set(entries)) == 2, entries  # one entry per run
    for entry, run, pair in zip(entries, runs, ("web01→web02", "web01→app01")):
        assert entry.startswith(f"#{run.id} ") and entry.count(pair) == 1, entry  # the pair named once
        assert run.label in entry
    assert dock.plot.grab().save(str(artifacts() / "measure-ab-legend.png"))


def test_the_live_curve_keeps_up_with_the_progress_bar(dock, qtbot):
    dock.set_pair(vm(dock, "web01"), vm(dock, "web02"))
    bar = dock.controls.progress
    seen: list[tuple[float, float | None, str]] = []  # (what the bar says in seconds, the curve's last x, its text)

    def beat(value: int) -> None:
        seen.append((dock.spec().total_seconds * value / bar.maximum(), dock.live[-1].t if dock.live else None,
                     bar.format()))

    bar.valueChanged.connect(beat)
    with qtbot.waitSignal(dock.runFinished, timeout=60_000) as blocker:
        dock.start()
    assert blocker.args[0].status == RunStatus.OK and dock.live
    before = [s for s, x, _ in seen if x is None]
    # sockperf's warm-up: the bar waits at zero ("warming up…") instead of running ahead of a curve not yet begun
    assert any(text == "warming up…" for *_, text in seen), seen
    assert max(before, default=0.0) <= dock.live[0].t + 0.5, seen
    # from then on the bar is at most one reporting beat ahead of the curve, never the 2 s of the warm-up
    ahead = [s - x for s, x, _ in seen if x is not None and s < dock.spec().total_seconds]
    assert ahead and max(ahead) < 1.2, seen
