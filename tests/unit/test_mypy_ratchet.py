"""The type-error ratchet counts per folder and only lets counts go down."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("mypy_ratchet", ROOT / "scripts" / "mypy_ratchet.py")
assert _spec is not None and _spec.loader is not None
ratchet = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ratchet)

OUTPUT = """\
app/vnetbench/gui/mainwindow.py:12: error: Item "None" of "X | None" has no attribute "y"  [union-attr]
app/vnetbench/gui/canvas/items.py:3: error: Incompatible types  [assignment]
app/vnetbench/api.py:7: error: Missing return  [return]
plugins/kvm/vnetbench_kvm/backend.py:9: error: Bad  [misc]
app/vnetbench/gui/mainwindow.py:14: note: a note is no error
Found 4 errors in 4 files (checked 10 source files)
"""


def test_errors_are_counted_per_room_plugin_and_top_level():
    assert ratchet.count(OUTPUT) == Counter({"app/vnetbench/gui": 2, "app/vnetbench": 1, "plugins/kvm": 1})


def test_a_folder_may_not_get_worse_and_an_unlisted_one_allows_none():
    found = ratchet.count(OUTPUT)
    assert ratchet.compare(found, {"app/vnetbench/gui": 2, "app/vnetbench": 1, "plugins/kvm": 1}) == []
    worse = ratchet.compare(found, {"app/vnetbench/gui": 1, "app/vnetbench": 1})
    assert worse == ["app/vnetbench/gui: 2 type errors, the ratchet allows 1",
                     "plugins/kvm: 1 type errors, the ratchet allows 0"]


def test_the_ratchet_file_reads_and_the_core_rooms_are_held_at_zero():
    allowed = ratchet.read()
    assert all(allowed[f"app/vnetbench/{room}"] == 0 for room in ("model", "predict", "backends", "measure"))
    assert all(n >= 0 for n in allowed.values())


def test_the_core_rooms_allow_no_error_whatever_the_file_says(tmp_path):
    """model/, predict/, backends/ and measure/ are type-clean (issue 31): a line raising one is ignored."""
    path = tmp_path / "ratchet.txt"
    path.write_text("# allowed\napp/vnetbench/predict 5\napp/vnetbench/gui 3\n")
    allowed = ratchet.read(path)
    assert allowed["app/vnetbench/gui"] == 3
    assert {allowed[room] for room in ("app/vnetbench/model", "app/vnetbench/predict", "app/vnetbench/backends",
                                       "app/vnetbench/measure")} == {0}
    found = ratchet.count("app/vnetbench/predict/walk.py:1: error: Bad  [misc]\n")
    assert ratchet.compare(found, allowed) == ["app/vnetbench/predict: 1 type errors, the ratchet allows 0"]
