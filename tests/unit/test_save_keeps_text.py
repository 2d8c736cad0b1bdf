"""Saving keeps what a person wrote: a save with no change gives the same bytes, an edit changes only its lines.

Checked on every bundled example and on a hand-written file with comments, flow style and both kinds of
quotes everywhere (tests/unit/data/commented.vnet.yaml).
"""

from __future__ import annotations

import copy
import difflib
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from model_strategies import topologies

from vnetbench import resources_dir
from vnetbench.model import Topology, load, save
from vnetbench.model.fileformat import MODELINE
from vnetbench.model.schema import SCHEMA_ID
from vnetbench.model.vlan import Vlan

EXAMPLES = sorted((resources_dir() / "examples").glob("*.vnet.yaml"))
COMMENTED = Path(__file__).parent / "data" / "commented.vnet.yaml"


def changed_lines(before: str, after: str) -> list[str]:
    """The diff as ``-line`` / ``+line`` entries, context and headers left out."""
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def copied(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copyfile(source, target)
    return target


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_an_unchanged_example_saves_byte_for_byte(example, tmp_path):
    path = copied(example, tmp_path)
    save(load(path), path)
    assert path.read_bytes() == example.read_bytes()


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_renaming_a_vm_and_changing_a_vlan_changes_only_those_lines(example, tmp_path):
    path = copied(example, tmp_path)
    design = load(path)
    vm = design.vms[-1]
    vm.name = "renamed-vm"
    tagged = [pg for sw in design.switches for pg in sw.portgroups if pg.vlan.tag]
    expected = [f"-  name: {load(path).vms[-1].name}", "+  name: renamed-vm"]
    if tagged:
        old_vlan = tagged[0].vlan.spelling
        tagged[0].vlan = Vlan.read(3999)
        expected += [f"-    vlan: {old_vlan}", "+    vlan: 3999"]
    save(design, path)
    diff = changed_lines(example.read_text(), path.read_text())
    assert sorted(line.replace("'", "") for line in diff) == sorted(expected)
    assert load(path) == design


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_removing_and_adding_a_vm_touches_only_its_lines(example, tmp_path):
    path = copied(example, tmp_path)
    design = load(path)
    gone = design.vms.pop(0)
    new = copy.deepcopy(design.vms[-1])
    new.id, new.name, new.vnics = "vm-added", "yes", []     # "yes" must stay text, not become true
    design.vms.append(new)
    save(design, path)
    diff = changed_lines(example.read_text(), path.read_text())
    removed = [line for line in diff if line.startswith("-")]
    added = [line for line in diff if line.startswith("+")]
    assert f"-- id: {gone.id}" in removed and all(line.startswith("-  ") or line == f"-- id: {gone.id}"
                                                   for line in removed)
    assert added[:2] == ["+- id: vm-added", "+  name: 'yes'"]
    assert load(path) == design


def test_a_hand_written_file_keeps_its_comments_styles_and_quotes(tmp_path):
    path = copied(COMMENTED, tmp_path)
    save(load(path), path)
    assert path.read_bytes() == COMMENTED.read_bytes()

    design = load(path)
    design.hosts[0].cpus = 8                         # a block mapping inside an indented list
    design.hosts[1].pnics[0].name = "vmnic1"         # inside a flow-style list
    design.switches[0].portgroups[1].vlan = Vlan.read(21)
    design.vms[0].name = "web02"                     # single-quoted
    design.name = "Lab: three hosts"                 # double-quoted
    design.description += "Third line.\n"            # a | block
    save(design, path)
    assert changed_lines(COMMENTED.read_text(), path.read_text()) == [
        '-name: "Lab: two hosts"    # double quotes, kept',
        '+name: "Lab: three hosts"  # double quotes, kept',
        "+  Third line.",
        "-    cpus: 2           # the default too",
        "+    cpus: 8           # the default too",
        "-    pnics: [{id: pnic-b0, name: vmnic0}]   # flow style, kept",
        "+    pnics: [{id: pnic-b0, name: vmnic1}]   # flow style, kept",
        "-      - {id: pg-db, name: DB, vlan: 20}     # database tier",
        "+      - {id: pg-db, name: DB, vlan: 21}     # database tier",
        "-    name: 'web01'     # single quotes, kept",
        "+    name: 'web02'     # single quotes, kept",
    ]
    assert load(path) == design


def test_a_default_written_out_stays_while_its_value_does(tmp_path):
    """``kind: esxi`` is the default: the codec would leave it out, but the person wrote it, so it stays."""
    path = copied(COMMENTED, tmp_path)
    design = load(path)
    design.vms[1].name = "db02"
    save(design, path)
    text = path.read_text()
    assert "    kind: esxi        # the default, written anyway\n" in text
    assert changed_lines(COMMENTED.read_text(), text) == ["-    name: db01", "+    name: db02"]


def test_save_as_keeps_the_text_of_the_file_the_design_came_from(tmp_path):
    design = load(COMMENTED)
    design.vms[0].name = "web02"
    target = tmp_path / "copy.vnet.yaml"
    save(design, target, keep_from=COMMENTED)
    assert changed_lines(COMMENTED.read_text(), target.read_text()) == [
        "-    name: 'web01'     # single quotes, kept", "+    name: 'web02'     # single quotes, kept"]


def test_a_new_file_starts_with_the_schema_modeline_once(tmp_path):
    path = tmp_path / "new.vnet.yaml"
    design = Topology(id="t1", name="lab", description="two\nlines\n")
    save(design, path)
    text = path.read_text()
    assert text.startswith(MODELINE) and SCHEMA_ID in MODELINE
    assert "description: |\n  two\n  lines\n" in text   # several lines are written as a block, not "\n"s
    design.name = "lab 2"
    save(design, path)
    assert path.read_text().count("yaml-language-server") == 1
    assert changed_lines(text, path.read_text()) == ["-name: lab", "+name: lab 2"]


def test_a_file_without_a_modeline_is_not_given_one(tmp_path):
    path = tmp_path / "plain.vnet.yaml"
    path.write_text("format_version: 1\nid: t\nname: lab\n")
    save(load(path), path)
    assert path.read_text() == "format_version: 1\nid: t\nname: lab\n"


def test_a_layout_it_cannot_follow_is_written_fresh_and_correct(tmp_path, caplog):
    """Flow style at the top: nothing to cut into lines, ruamel edits the whole document."""
    path = tmp_path / "flow.vnet.yaml"
    path.write_text("{format_version: 1, id: t, name: lab}  # one line\n")
    design = load(path)
    design.name = "lab 2"
    save(design, path)
    assert load(path) == design


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(topologies(), topologies())
def test_saving_any_design_over_any_other_reads_back_as_the_new_one(tmp_path, first, second):
    """Random designs full of tricky text: whatever the edit, the file holds the new design (kept text where
    the edit could follow it, else written fresh)."""
    path = tmp_path / "any.vnet.yaml"
    path.unlink(missing_ok=True)
    save(first, path)
    save(second, path)
    assert load(path) == second


def test_text_the_round_trip_editor_refuses_falls_back_to_a_fresh_write(tmp_path, caplog, monkeypatch):
    """Whatever the round-trip editor cannot do is never an error of the save: the file is written fresh."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    def refuse(self, stream):
        raise YAMLError("refused")

    monkeypatch.setattr(YAML, "load", refuse)
    path = copied(COMMENTED, tmp_path)
    design = load(path)
    design.vms[0].name = "web02"
    save(design, path)
    assert load(path) == design and path.read_text().startswith(MODELINE)
    assert "could not be kept (refused)" in caplog.text
