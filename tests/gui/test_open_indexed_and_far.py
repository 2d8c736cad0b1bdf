"""Issue 29: opening a large design never stalls on one big piece of work, and a whole design far out reads.

While a large design is drawn a slice at a time, Qt's index is made once for it (its depth and extent fixed up
front) and takes each slice's items as they come; the list of what to draw, the links and the bundles are worked
out in slices too. Far out a host tile is a plain block a pixel clear of its neighbours, and the racks are named.
The times are ``tests/bench/bench_open.py``'s; these tests check what the code does.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene, QStyleOptionGraphicsItem

from vnetbench.gui import opening
from vnetbench.gui.canvas import following, overview, routing, slicing
from vnetbench.gui.canvas.items import BLOCK_PX
from vnetbench.model import save

pytestmark = pytest.mark.gui

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "bench"))
from generate import generate  # noqa: E402


@pytest.fixture(scope="module")
def racks_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("far") / "racks-2000.vnet.json"
    save(generate(2000, 100, seed=5), path)
    return path


def recorded(events: list[str], name: str, fn):
    """``fn`` (a generator function) that notes ``name`` for each thing it yields."""
    def wrapper(*args, **kwargs):
        for value in fn(*args, **kwargs):
            events.append(name)
            yield value
    return wrapper


def test_the_index_is_made_once_for_the_design_and_the_lists_are_worked_out_in_slices(window, qtbot, racks_file,
                                                                                       monkeypatch):
    win, scene = window, window.scene
    events: list[str] = []
    monkeypatch.setattr(opening, "SLICE", 0.002)  # many slices, whatever the machine
    monkeypatch.setattr(following, "iter_drawn", recorded(events, "drawn", following.iter_drawn))
    monkeypatch.setattr(routing, "iter_links", recorded(events, "link", routing.iter_links))
    restart = slicing.Slices.restart
    indexes: list[tuple] = []

    def restarted(self):
        events.append("slice")
        indexes.append((scene.itemIndexMethod(), scene.bspTreeDepth()))
        restart(self)
    monkeypatch.setattr(slicing.Slices, "restart", restarted)
    refresh = overview.Bundles.refresh_steps
    monkeypatch.setattr(overview.Bundles, "refresh_steps", lambda self, *args: events.append("bundles") or refresh(
        self, *args))
    with qtbot.waitSignal(win.opener.opened, timeout=240_000):
        assert win.open_file(str(racks_file))

    for name in ("drawn", "link"):  # each list was made over several turns of the event loop
        first, last = events.index(name), len(events) - 1 - events[::-1].index(name)
        assert events[first:last].count("slice") >= 3, name
    assert "bundles" in events and not scene.bundles.stale  # far out: the bundles, worked out in the slices

    bsp = QGraphicsScene.ItemIndexMethod.BspTreeIndex
    depth = scene.bspTreeDepth()
    assert 2 ** depth >= len(scene.items()) // 2  # as deep as the final count needs (Qt's rule)
    adding = indexes[events[:events.index("link")].count("slice"):]  # from the first box added to the end
    assert adding and all(index == (bsp, depth) for index in adding), "one index, made once, took every slice"
    assert scene.sceneRect().contains(scene.design_rect())


def test_far_out_hosts_are_blocks_apart_and_each_rack_is_named(window, qtbot, racks_file):
    win, scene = window, window.scene
    with qtbot.waitSignal(win.opener.opened, timeout=240_000):
        assert win.open_file(str(racks_file))
    fit = win.view.zoom()
    assert overview.RACKS_LOD > fit  # this design at fit: its racks, not bundles
    scene.bundles.show(True)
    racks = scene.bundles.racks
    assert [words.split(" \u00b7 ")[:2] for _, words in racks] == [[f"tor{i}", "20 hosts"] for i in range(5)]
    vms = sum(int(words.split(" \u00b7 ")[2].split()[0].replace(",", "")) for _, words in racks)
    assert vms == len(win.workbench.topology.vms)
    hosts = [item for item in scene.nodes.values() if item.kind == "host"]
    for host in hosts:  # each host in the band of exactly one rack
        rect = host.mapRectToScene(host.size)
        assert sum(band.contains(rect) for band, _ in racks) == 1, host.oid

    host = max(hosts, key=lambda item: item.size.height())
    named = _tile(host, fit)  # at fit a 2,000-VM design's hosts still hold their names: tiles with an outline
    assert host.size.height() * fit >= BLOCK_PX and named.pixelColor(4, named.height() // 2) != WHITE
    far = overview.RACKS_LOD / 5  # a whole 10,000-VM design
    assert host.size.height() * far < BLOCK_PX
    block = _tile(host, far)
    assert block.pixelColor(block.width() // 2, block.height() // 2) != WHITE  # a filled block...
    edge = [block.pixelColor(4, y) for y in range(4, block.height() - 4)] + [
        block.pixelColor(x, 4) for x in range(4, block.width() - 4)]
    assert all(c == WHITE for c in edge)  # ...a pixel clear of its tile's edge: no outline, a gap


WHITE = QColor("white")


def _tile(item, zoom: float) -> QImage:
    """``item`` painted as the view paints it at ``zoom``, its tile's corner at (4, 4) on white."""
    image = QImage(int(item.size.width() * zoom) + 8, int(item.size.height() * zoom) + 8, QImage.Format.Format_RGB32)
    image.fill(WHITE)
    painter = QPainter(image)
    painter.translate(4, 4)
    painter.scale(zoom, zoom)
    item.paint(painter, QStyleOptionGraphicsItem(), None)
    painter.end()
    return image
