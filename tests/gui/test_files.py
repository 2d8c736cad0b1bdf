"""Files: save, open, recent files, the modified mark, asking before losing work, autosave and restore."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from vnetbench.gui.files import Autosave, recent_files
from vnetbench.gui.mainwindow import MainWindow
from vnetbench.model import load
from vnetbench.model.fileformat import to_data

pytestmark = pytest.mark.gui
B = QMessageBox.StandardButton


def test_title_marks_unsaved_changes_and_save_clears_it(window, tmp_path):
    win = window
    assert win.windowTitle().startswith("untitled") and not win.isWindowModified()
    win.editor.add("host-esxi", 0, 0)
    assert win.isWindowModified()
    path = tmp_path / "lab.vnet.yaml"
    win.ask_save_path = lambda: str(tmp_path / "lab")  # the suffix is added
    assert win.save()
    assert path.exists() and not win.isWindowModified()
    assert win.windowTitle().startswith("lab.vnet.yaml")
    assert win.workbench.topology.name == load(path).name == "lab"  # diagram and report are titled "lab"
    assert to_data(load(path)) == to_data(win.workbench.topology)
    assert recent_files()[0] == str(path)
    win.workbench.undo_stack.undo()
    assert win.isWindowModified()  # back before the save point is a change too


def test_close_asks_when_unsaved_and_cancel_keeps_the_window(window):
    win = window
    win.editor.add("vm", 0, 0)
    asked = []
    win.ask_unsaved = lambda: asked.append(1) or B.Cancel
    assert not win.close()
    assert asked and win.isVisible()
    win.ask_unsaved = lambda: asked.append(2) or B.Discard
    assert win.close()
    assert asked == [1, 2]


def test_open_replaces_the_design_clears_history_and_reports_bad_files(window, tmp_path):
    win = window
    good = tmp_path / "good.vnet.yaml"
    win.editor.add("host-kvm", 0, 0)
    win.ask_save_path = lambda: str(good)
    win.save()
    win.new_design()
    assert win.workbench.topology.hosts == [] and win.workbench.undo_stack.count() == 0
    assert win.open_file(str(good))
    assert [h.kind.value for h in win.workbench.topology.hosts] == ["kvm"]
    assert win.workbench.undo_stack.count() == 0 and not win.isWindowModified()
    bad = tmp_path / "bad.vnet.yaml"
    bad.write_text("format_version: 1\nid: x\nhosts: [{id: h, name: h, kind: mainframe}]\n")
    assert not win.open_file(str(bad))
    assert "bad.vnet.yaml" in win.questions[-1] and "kind" in win.questions[-1]


def test_examples_menu_lists_bundled_examples_and_opens_them_untitled(window):
    win = window
    win.examples_menu.aboutToShow.emit()
    names = [a.text() for a in win.examples_menu.actions()]
    title = "ESX: the four vSwitch / portgroup / VLAN cases"
    assert title in names and len(names) == len(win.examples())  # the examples' titles, not their file names
    action = win.examples_menu.actions()[names.index(title)]
    action.trigger()
    assert win.workbench.topology.id == "example-esx-four-cases"
    assert win.path is None  # saving asks for a new file; the bundled example stays as shipped
    assert win.windowTitle().startswith(title)  # an opened example keeps its title
    assert len(win.scene.nodes) > 10


def test_autosave_after_edits_and_restore_after_a_crash(window, qtbot, data_dir):
    win = window
    assert win.autosave_timer.interval() == 30_000 and win.autosave_timer.isActive()
    win.editor.add("host-esxi", 0, 0)
    win.editor.add("vm", 400, 0)
    assert win.edit_timer.isActive()  # an autosave follows the edit shortly
    qtbot.waitUntil(lambda: win.autosave.meta_path.exists(), timeout=5000)
    saved = to_data(win.workbench.topology)
    # A crash: the window goes away without a clean close, the autosave stays behind.
    crashed_slot = win.autosave.path
    win.autosave_timer.stop()
    win.edit_timer.stop()
    win.autosave.lock.release()  # a crash ends the process, and the kernel drops its lock with it

    after = MainWindow()
    qtbot.addWidget(after)
    offered = []
    after.ask_restore = lambda s: offered.append(s) or True
    assert after.offer_restore()
    assert len(offered) == 1 and "unsaved design" in offered[0].describe()
    assert to_data(after.workbench.topology) == saved
    assert after.isWindowModified()  # restored work is unsaved work
    assert not crashed_slot.exists()
    # A clean close (discarding) removes the new session's autosave: nothing is offered next time.
    after.ask_unsaved = lambda: B.Discard
    after.close()
    assert Autosave().left_behind() == []


def test_autosave_of_a_saved_file_is_not_offered_when_the_file_is_newer(window, qtbot, tmp_path):
    win = window
    path = tmp_path / "d.vnet.yaml"
    win.ask_save_path = lambda: str(path)
    win.editor.add("host-esxi", 0, 0)
    qtbot.waitUntil(lambda: win.autosave.path.exists(), timeout=5000)
    assert win.save()  # saving removes the autosave
    assert not win.autosave.path.exists()
    win.editor.add("vm", 300, 0)
    win.autosave_now()
    qtbot.waitUntil(lambda: win.autosave.meta_path.exists(), timeout=5000)  # written last
    assert Autosave().left_behind() == []  # the window lives: its autosave is not offered elsewhere
    win.autosave.lock.release()  # a crash
    assert [s.original for s in Autosave().left_behind()] == [str(path.resolve())]


# --- the autosave lock (issue 12, item 8) ------------------------------------------------------------------------


def test_two_windows_on_one_file_keep_separate_autosaves(data_dir, tmp_path):
    first, second = Autosave(), Autosave()
    for slot, text in ((first, "first"), (second, "second")):
        slot.follow(str(tmp_path / "shared.vnet.yaml"))
        slot.write(text)
    assert first.path != second.path
    assert first.path.read_text() == "first" and second.path.read_text() == "second"
    assert first.left_behind() == [] and second.left_behind() == []   # a live window's autosave is not offered


def test_a_reused_pid_does_not_hide_a_crashed_session(data_dir):
    """The crashed session's PID now belongs to another live process (here: our parent): still offered."""
    crashed = Autosave()
    crashed.write('{"format_version": 1, "id": "lost"}')
    meta = json.loads(crashed.meta_path.read_text())
    meta["pid"] = os.getppid()
    crashed.meta_path.write_text(json.dumps(meta))
    crashed.lock.release()                                         # the kernel does this when a process dies
    assert [s.path for s in Autosave().left_behind()] == [crashed.path]


def test_a_crashed_window_in_another_process_is_offered_and_a_live_one_is_not(data_dir):
    script = ("import os, sys, time\nfrom vnetbench.gui.files import Autosave\na = Autosave()\n"
              "a.write('{\"format_version\": 1, \"id\": \"x\"}')\nprint(a.path, flush=True)\n"
              "sys.stdin.readline()\nos._exit(9)\n")
    env = {**os.environ, "VNETBENCH_DATA_DIR": str(data_dir), "QT_QPA_PLATFORM": "offscreen"}
    child = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, env=env)
    slot = Path(child.stdout.readline().strip())
    assert slot.exists() and Autosave().left_behind() == []        # alive: its lock is held
    child.stdin.write("\n")
    child.stdin.flush()
    child.wait(10)                                                  # gone without a clean close
    assert [s.path for s in Autosave().left_behind()] == [slot]
