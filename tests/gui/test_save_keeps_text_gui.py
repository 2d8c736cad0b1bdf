"""The designer's Save and Save As keep the text a person wrote: only the edited lines change."""

from __future__ import annotations

import difflib
import shutil

import pytest

from vnetbench import resources_dir
from vnetbench.gui.commands import SetField

pytestmark = pytest.mark.gui
EXAMPLE = resources_dir() / "examples" / "kvm-nic-models.vnet.yaml"   # comments, flow style, a | block


def changed(before: str, after: str) -> list[str]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_save_and_save_as_change_only_the_edited_line(window, tmp_path):
    win = window
    path = tmp_path / "lab.vnet.yaml"
    shutil.copyfile(EXAMPLE, path)
    assert win.open_file(str(path))
    assert win.save() and path.read_bytes() == EXAMPLE.read_bytes()      # nothing changed: same bytes

    vm = win.workbench.topology.vms[1]
    old = vm.name
    win.workbench.undo_stack.push(SetField(win.workbench.document, vm, "name", "guest-2"))
    assert win.save()
    assert changed(EXAMPLE.read_text(), path.read_text()) == [f"-  name: {old}", "+  name: guest-2"]

    win.workbench.undo_stack.push(SetField(win.workbench.document, vm, "name", "guest-3"))
    copy = tmp_path / "copy.vnet.yaml"
    win.ask_save_path = lambda: str(copy)
    assert win.save_as()
    assert changed(EXAMPLE.read_text(), copy.read_text()) == [f"-  name: {old}", "+  name: guest-3"]


def test_settings_and_a_crashed_sessions_autosave_of_an_older_version_are_taken_over(tmp_path, monkeypatch):
    """Before the folders moved, settings and autosaves sat in Qt's data folder: both are found after it."""
    from vnetbench import dirs
    from vnetbench.gui import files

    old = tmp_path / "old"
    (old / "autosave").mkdir(parents=True)
    (old / "settings.ini").write_text("[General]\nrecent=/srv/designs/lab.vnet.yaml\n")
    (old / "autosave" / "abc.vnet.json").write_text('{"format_version": 1, "id": "lost"}')
    (old / "autosave" / "abc.meta.json").write_text('{"original": null, "saved_at": 1.0}')
    (old / "autosave" / "abc.lock").write_text("")                 # its window is gone: nobody holds it
    monkeypatch.delenv("VNETBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(files, "_old_folder", lambda: old)
    assert files.recent_files() == ["/srv/designs/lab.vnet.yaml"]
    assert (dirs.config_dir() / "settings.ini").is_file()
    slot = files.Autosave()
    assert slot.folder == tmp_path / "state" / "vnetbench" / "autosave"
    assert [s.path.name for s in slot.left_behind()] == ["abc.vnet.json"]
    assert list((old / "autosave").iterdir()) == []
    slot.lock.release()
