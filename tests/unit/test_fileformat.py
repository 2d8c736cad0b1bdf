"""The design file format: lossless round trips, atomic saves, migration and version checks."""

from __future__ import annotations

import errno
import json
import os
import stat

import jsonschema
import pytest
import yaml
from hypothesis import given
from model_strategies import topologies

from vnetbench.model import FORMAT_VERSION, FormatError, Topology, TopologyFileError, dumps, load, loads, save
from vnetbench.model import fileformat
from vnetbench.model.fileformat import to_data
from vnetbench import resources_dir
from vnetbench.model.schema import json_schema

EXAMPLES = resources_dir() / "examples"

SCHEMA = jsonschema.Draft202012Validator(json_schema())


@given(topologies())
def test_load_save_load_is_lossless(topology: Topology):
    text = dumps(topology)
    again = loads(text)
    assert again == topology
    assert dumps(again) == text  # saving an unchanged design gives the same bytes (clean diffs)
    assert loads(dumps(topology, "json")) == topology


@given(topologies())
def test_every_saved_design_fits_the_json_schema(topology: Topology):
    errors = [e.message for e in SCHEMA.iter_errors(yaml.safe_load(dumps(topology)))]
    assert errors == []


def test_save_and_load_a_file(tmp_path):
    t = Topology(id="t1", name="lab", description="two\nlines")
    path = tmp_path / "lab.vnet.yaml"
    save(t, path)
    assert load(path) == t
    assert path.read_text().startswith(f"{fileformat.MODELINE}format_version: {FORMAT_VERSION}\nid: t1\n")


def test_json_files_are_read_too(tmp_path):
    path = tmp_path / "lab.json"
    path.write_text(json.dumps({"format_version": 1, "id": "j", "hosts": [{"id": "h", "name": "esx01"}]}))
    assert load(path).hosts[0].name == "esx01"


def _original(tmp_path):
    path = tmp_path / "keep.vnet.yaml"
    save(Topology(id="old", name="original"), path)
    return path, path.read_bytes()


def test_a_failing_dump_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path, before = _original(tmp_path)

    def broken(_topology):
        raise RuntimeError("serializer crashed")

    monkeypatch.setattr(fileformat, "to_data", broken)
    with pytest.raises(RuntimeError):
        save(Topology(id="new", name="changed"), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.vnet.yaml"]


def test_a_full_disk_during_the_write_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path, before = _original(tmp_path)

    def no_space(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fileformat.os, "fsync", no_space)
    with pytest.raises(OSError, match="No space"):
        save(Topology(id="new", name="x" * 100_000), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.vnet.yaml"]  # no temporary file left behind


def test_a_failed_rename_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path, before = _original(tmp_path)

    def refuse(_src, _dst):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(fileformat.os, "replace", refuse)
    with pytest.raises(PermissionError):
        save(Topology(id="new"), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.vnet.yaml"]


def test_save_keeps_the_file_mode(tmp_path):
    path, _ = _original(tmp_path)
    os.chmod(path, 0o600)
    save(Topology(id="new"), path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load(path).id == "new"


FORMAT_0 = """\
format_version: 0
id: proto
hosts:
- {id: h1, name: esx01, x: 40, y: 60, pnics: [{id: n0, name: vmnic0}]}
switches:
- id: s1
  name: vSwitch0
  host: h1
  x: 50
  portgroups: [{id: pg1, name: VM Network, vlan: 10}]
vms:
- id: v1
  name: web01
  host: h1
  x: 70
  y: 20
  vnics: [{id: v1n, name: eth0, portgroup: pg1, ip: 10.0.0.5/24}]
"""


def test_format_0_is_migrated():
    t = loads(FORMAT_0)
    assert t.format_version == FORMAT_VERSION
    assert t.vms[0].vnics[0].network == "pg1"
    assert (t.layout.places["h1"].x, t.layout.places["h1"].y) == (40.0, 60.0)
    assert (t.layout.places["s1"].x, t.layout.places["s1"].y) == (50.0, 0.0)
    assert t.layout.places["v1"].y == 20.0
    assert "portgroup:" not in dumps(t) and f"format_version: {FORMAT_VERSION}" in dumps(t)


def test_a_newer_format_is_refused_with_a_clear_message():
    with pytest.raises(FormatError) as info:
        loads(f"format_version: {FORMAT_VERSION + 1}\nid: future\n")
    assert info.value.where == "format_version"
    assert "newer vnetbench" in str(info.value) and "upgrade" in str(info.value)


def test_a_missing_format_version_is_named():
    with pytest.raises(FormatError) as info:
        loads("id: x\n")
    assert info.value.where == "format_version"


def test_errors_name_the_place_and_suggest_the_fix(tmp_path):
    path = tmp_path / "typo.vnet.yaml"
    path.write_text("format_version: 1\nid: t\nvms:\n- id: v\n  name: a\n  vnics:\n  - id: n\n    name: eth0\n"
                    "    typ: e1000\n")
    with pytest.raises(TopologyFileError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "vms[0].vnics[0].typ" in message and "did you mean 'type'" in message


def test_saved_fields_equal_to_their_default_are_left_out():
    data = to_data(Topology(id="t"))
    assert data == {"format_version": FORMAT_VERSION, "id": "t"}


def test_json_files_hold_the_same_design_and_load_through_the_same_checks(tmp_path):
    """A .vnet.json file is the fast form of the same format: same content, same errors."""
    topology = load(EXAMPLES / "esx-four-cases.vnet.yaml")
    path = tmp_path / "big.vnet.json"
    save(topology, path)
    assert path.read_text().startswith("{")
    assert load(path) == topology
    with pytest.raises(FormatError) as err:
        loads('{"format_version": 1, "id": "x", "vms": [{"id": "a", "name": "b", "role": "fw"}]}')
    assert err.value.where == "vms[0].role"
    with pytest.raises(FormatError) as err:
        loads('{"format_version": 1, "id": "x",\n "hosts": [}')
    assert "line 2" in err.value.where


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_the_mode_the_umask_gives(tmp_path, umask, mode):
    """Like any editor's save: a design is shared in a repository, not a secret (issue 17)."""
    old = os.umask(umask)
    try:
        save(Topology(id="new"), tmp_path / "new.vnet.yaml")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.vnet.yaml").stat().st_mode) == mode
