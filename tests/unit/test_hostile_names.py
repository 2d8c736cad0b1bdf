"""Names are data, never commands (issue 33): one payload set, as the names and ids of every object kind.

Each payload of ``hostile.PAYLOADS`` starts every name and id of a design (hosts, pNICs, switches,
portgroups, VMs, vNICs, physical switches, ports, routers, links, the design itself). Every CLI command's
terminal output must hold no character a terminal acts on; every export format must read back with a real
parser, with no markup, formula or break-out taking effect. The designer's side is tests/gui/test_hostile_gui.py.
"""

from __future__ import annotations

import copy
import csv
import html.parser
import io
import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from hostile import PAYLOADS, hostile_data, raw_controls
from test_loader_fuzz import _run, through_everything

from vnetbench.cli.commands.measure import _print_run
from vnetbench.cli.main import main
from vnetbench.measure import RunStore
from vnetbench.model import loads
from vnetbench.model.text import csv_cell, exportable, one_line, printable

NAMES = list(PAYLOADS)
FORMULA = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Write a design (and a changed copy, for ``diff``) per payload; runs and labs in folders of the test's."""
    monkeypatch.setenv("VNETBENCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))

    def write(name: str) -> tuple[Path, Path, dict]:
        data = hostile_data(PAYLOADS.get(name, "x"))
        changed = copy.deepcopy(data)
        changed["vms"][3]["vnics"][0]["network"] = changed["vms"][0]["vnics"][0]["network"]  # db01 moves VLAN
        old, new = tmp_path / f"{name}.vnet.json", tmp_path / f"{name}-new.vnet.json"
        old.write_text(json.dumps(data), encoding="utf-8")
        new.write_text(json.dumps(changed), encoding="utf-8")
        return old, new, data

    return write


def run_cli(capsys, *argv: str) -> str:
    main(list(argv))
    out, err = capsys.readouterr()
    return out + err


def test_the_payloads_reach_the_design_as_names_and_ids():
    """The fixture itself: every payload loads, and starts every name and id (so the tests below test it)."""
    for payload in PAYLOADS.values():
        design = loads(json.dumps(hostile_data(payload)))
        things = [design, *design.hosts, *design.switches, *design.vms, *design.physical_switches,
                  *design.physical_routers, *[n for vm in design.vms for n in vm.vnics],
                  *[p for h in design.hosts for p in h.pnics], *[pg for sw in design.switches for pg in sw.portgroups]]
        assert all(t.name.startswith(payload) and t.id.startswith(payload) for t in things)


@pytest.mark.parametrize("name", NAMES)
def test_every_command_prints_names_as_visible_text(name, files, capsys):
    path, changed, data = files(name)
    payload = PAYLOADS[name]
    web01, db01 = data["vms"][0]["id"], data["vms"][3]["id"]
    outputs = {
        "validate": run_cli(capsys, "validate", str(path)),
        "show": run_cli(capsys, "show", str(path)),
        "predict": run_cli(capsys, "predict", str(path), "--from", web01, "--to", db01),
        "matrix": run_cli(capsys, "matrix", str(path)),
        "diff": run_cli(capsys, "diff", str(path), str(changed)),
        "demo": run_cli(capsys, "demo", str(path)),
        "lab plan": run_cli(capsys, "lab", "--mode", "root", "plan", str(path)),
        "export": run_cli(capsys, "export", str(path), "--format", "svg", "-o", str(path.with_suffix(".svg"))),
    }
    design = loads(path.read_text(encoding="utf-8"))
    run = _run(design)[0]
    RunStore().add(run)
    outputs["runs"] = run_cli(capsys, "runs")
    outputs["runs show"] = run_cli(capsys, "runs", "show", str(run.id))
    _print_run(run)  # what `measure` prints for a finished run
    outputs["measure"] = "".join(capsys.readouterr())
    for command, text in outputs.items():
        assert not raw_controls(text), (command, sorted(set(raw_controls(text))), text[:300])
    shown = (printable(payload).split("\n")[0], one_line(payload))  # in text blocks, in table cells
    for command in ("show", "predict", "matrix", "diff", "demo", "runs", "runs show", "measure"):
        assert any(form in outputs[command] for form in shown), (command, outputs[command][:300])
    if name == "rlo":
        assert all("\\u202e" in outputs[c] for c in ("show", "predict", "matrix", "runs", "measure"))
    assert len(outputs["runs"].splitlines()) == 1 and outputs["runs show"].startswith(one_line(run.title) + "\n")
    plain, _, _ = files("plain")  # the same design with plain names: a name never adds a line of its own
    for command in ("show", "matrix", "predict"):
        argv = ["--from", "x" + web01.removeprefix(payload), "--to", "x" + db01.removeprefix(payload)] \
            if command == "predict" else []
        assert len(outputs[command].splitlines()) == len(run_cli(capsys, command, str(plain), *argv).splitlines()), \
            command


@pytest.mark.parametrize("name", ["formula-eq", "formula-plus", "formula-minus", "formula-at", "formula-tab",
                                  "cr-overwrite", "quotes-newline", "osc-title", "rlo"])
def test_matrix_csv_on_stdout_is_text_cells_in_whole_rows(name, files, capsys):
    path, _, data = files(name)
    out = run_cli(capsys, "matrix", "--csv", str(path))
    rows = list(csv.reader(io.StringIO(out, newline="")))
    n = len(data["vms"])
    assert rows[0] == ["src", "dst", "verdict"] and len(rows) == 1 + n * (n - 1)
    for src, dst, verdict in rows[1:]:
        assert not src.startswith(FORMULA) and not dst.startswith(FORMULA) and "\r" not in src + dst
        assert verdict in ("in-host", "in-host-routed", "via-physical", "routed-via-physical", "blocked",
                           "unreachable")
    assert rows[1][0] == csv_cell(data["vms"][0]["name"])
    assert "\x1b" not in out and "\u202e" not in out


def _text_cells(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[str]]] = []
        self.script = ""
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, [k for k, _ in attrs]))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script += data


def _svg_nodes(dot_file: Path) -> int:
    svg = subprocess.run(["dot", "-Tsvg", str(dot_file)], capture_output=True, check=True, timeout=60).stdout
    return sum(1 for el in ET.fromstring(svg).iter() if el.get("class") == "node")


def _statement(line: str) -> str:
    """A Mermaid line's statement: its first word, or a node id before its label."""
    return re.split(r"[\[\s|]", line.strip(), maxsplit=1)[0]


@pytest.fixture(scope="module")
def benign(tmp_path_factory) -> Path:
    """The same design with plain names: what every export's structure must stay."""
    folder = tmp_path_factory.mktemp("benign")
    through_everything(loads(json.dumps(hostile_data("x"))), folder)
    return folder


@pytest.mark.parametrize("name", NAMES)
def test_every_export_keeps_names_as_data(name, tmp_path, benign):
    payload = PAYLOADS[name]
    design = loads(json.dumps(hostile_data(payload)))
    through_everything(design, tmp_path)  # every format written and read back with a real parser
    text = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir() if p.suffix != ".png"
            and p.suffix != ".pdf"}
    assert len(text) == 11, sorted(text)  # 16 formats, less 3 PNGs and 2 PDFs
    for file, content in text.items():
        assert "\u202e" not in content and "\x1b" not in content and "\x07" not in content, file
    # CSV: whole rows, names as text cells (a formula shown, never run), numbers left numbers
    for file in ("design-matrix.csv", "design-results.csv"):
        rows = _text_cells(tmp_path / file)
        assert len(rows) == len(_text_cells(benign / file)) and len({len(r) for r in rows}) == 1, file
        for cell in (c for row in rows for c in row):
            assert not cell.startswith(FORMULA) or re.fullmatch(r"-?[0-9.e+-]+", cell), (file, cell)
    matrix = _text_cells(tmp_path / "design-matrix.csv")
    assert matrix[1][0] == csv_cell(design.vms[0].name)
    results = _text_cells(tmp_path / "design-results.csv")
    assert results[1][3] == csv_cell(design.vms[0].name) and float(results[1][-1]) == 940.0
    # SVG, draw.io: no element or handler from a name; draw.io's HTML labels hold it escaped
    for file in ("design.svg", "design-matrix.svg", "design-results.svg", "design.drawio"):
        for el in ET.fromstring(text[file]).iter():
            assert el.tag.rsplit("}", 1)[-1] not in ("script", "img", "foreignObject"), (file, el.tag)
            assert not any(k.lower().startswith("on") for k in el.attrib), (file, el.attrib)
            assert "<script" not in el.get("value", "") and "<img" not in el.get("value", ""), file
    # the report: no tag or handler from a name; template syntax in a name stays text
    tags = _Tags()
    tags.feed(text["design-report.html"])
    benign_tags = _Tags()
    benign_tags.feed((benign / "design-report.html").read_text(encoding="utf-8"))
    assert sorted({t for t, _ in tags.tags}) == sorted({t for t, _ in benign_tags.tags})
    assert not any(a.startswith("on") for _, attrs in tags.tags for a in attrs) and "alert(1)" not in tags.script
    if name == "template":
        assert "{{ 7*7 }}" in text["design-report.html"]
    # DOT: the same nodes as the plain design (no break-out), and Graphviz's SVG is valid XML (read_back)
    assert _svg_nodes(tmp_path / "design.dot") == _svg_nodes(benign / "design.dot")
    # Mermaid: the same lines as the plain design (no break-out), its front matter a title that is text
    mermaid, plain = text["design.mmd"].splitlines(), (benign / "design.mmd").read_text(encoding="utf-8").splitlines()
    assert len(mermaid) == len(plain) and list(map(_statement, mermaid)) == list(map(_statement, plain))
    front = yaml.safe_load(text["design.mmd"].split("---")[1])
    assert front == {"title": exportable(design.name, breaks=False)}
    if name == "rlo":
        for file in ("design.svg", "design.drawio", "design.dot", "design.mmd", "design-matrix.csv",
                     "design-report.html"):
            assert "\\u202e" in text[file], file
        for file in ("design.pdf", "design-report.pdf"):
            shown = subprocess.run(["pdftotext", str(tmp_path / file), "-"], capture_output=True, text=True,
                                   check=True, timeout=60).stdout
            assert "\u202e" not in shown and "\\u202e" in shown, file


def test_control_characters_in_a_yaml_file_are_refused_with_a_clear_error(tmp_path, capsys):
    """YAML cannot carry a raw ESC: the loader refuses the file in one printable line (JSON or a YAML escape
    can carry one, and then the output filters above hold)."""
    path = tmp_path / "raw.vnet.yaml"
    path.write_text("format_version: 1\nid: t\nname: a\x1b]0;pwned\x07b\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and not raw_controls(err) and "line 3" in err
