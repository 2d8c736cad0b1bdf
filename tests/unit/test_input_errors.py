"""Inputs that once crashed vnetbench (issue 12, items 9-19 and 21): each is now one clear line and exit 2.

Every case runs the real command line in a child process with a memory cap and a timeout, so a regression
(a read of /dev/zero, a hang on a FIFO, a segfault on deep nesting) fails the test instead of the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from vnetbench.model import FormatError, loads
from vnetbench.model.fileformat import MAX_CONTAINERS, MAX_FILE_BYTES
from vnetbench.model.validate import validate

MEMORY_CAP = 1536 * 2**20


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vnetbench", *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_capped, errors="surrogateescape")


def refused(proc: subprocess.CompletedProcess, *words: str) -> str:
    """The one-line error of a refused input, after checking its form."""
    err = proc.stderr
    assert proc.returncode == 2, (proc.returncode, err[-2000:])
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.isprintable() or err[:-1].isprintable(), repr(err)
    assert len(err) < 600, len(err)
    for word in words:
        assert word in err, err
    return err


HEAD = "format_version: 1\nid: t\n"


def write(tmp_path: Path, text: str, name: str = "d.vnet.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return str(path)


# --- 9, 10, 11: references, ids and coordinates -------------------------------------------------------------

HOST_VM_SAME_ID = HEAD + """\
hosts:
- {id: h1, name: esx01}
switches:
- {id: s1, name: vs0, host: h1, portgroups: [{id: pg, name: PG, vlan: 10}]}
vms:
- {id: h1, name: web01, host: h1, vnics: [{id: n1, name: eth0, network: pg}]}
layout:
  places:
    h1: {x: 10, y: 10}
"""


def test_an_id_shared_by_a_vm_and_a_host_is_refused_by_export(tmp_path):
    path = write(tmp_path, HOST_VM_SAME_ID)
    for fmt in ("svg", "drawio", "dot"):
        refused(cli("export", path, "--format", fmt, "-o", str(tmp_path / f"out.{fmt}")), "h1", "twice")


def test_a_reference_to_the_wrong_kind_is_a_problem_not_a_crash(tmp_path):
    path = write(tmp_path, HEAD + """\
hosts:
- {id: h1, name: esx01, pnics: [{id: p1, name: vmnic0}]}
physical_switches:
- {id: ps, name: core, ports: [{id: port1, name: g1}]}
links:
- {id: l1, a: p1, b: port1}
switches:
- {id: s1, name: vs0, host: l1, uplinks: [{pnic: port1}]}
vms:
- {id: v1, name: web01, host: p1, vnics: [{id: n1, name: eth0, network: h1}]}
""")
    proc = cli("validate", path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "switches[0].host" in proc.stdout and "a link, not a host" in proc.stdout
    assert "vms[0].host" in proc.stdout and "a pNIC, not a host" in proc.stdout
    assert "switches[0].uplinks[0].pnic" in proc.stdout and "vms[0].vnics[0].network" in proc.stdout


def test_a_host_and_a_switch_sharing_an_id_are_a_problem_and_still_predict(tmp_path):
    """Found by the pipeline fuzz: the segment's switch was looked up by id and came back as the host."""
    path = write(tmp_path, HEAD + """\
hosts:
- {id: s1, name: esx01, pnics: [{id: p1, name: vmnic0}]}
switches:
- {id: s1, name: vs0, host: s1, uplinks: [{pnic: p1}], portgroups: [{id: pg, name: PG, vlan: 10}]}
vms:
- {id: v1, name: web01, host: s1, vnics: [{id: n1, name: eth0, network: pg}]}
- {id: v2, name: web02, host: s1, vnics: [{id: n2, name: eth0, network: pg}]}
""")
    proc = cli("validate", path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "'s1' is used twice" in proc.stdout
    proc = cli("matrix", path)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "web01" in proc.stdout and "web02" in proc.stdout


def test_a_lab_plan_of_a_design_with_broken_references_is_refused_in_one_line(tmp_path, monkeypatch):
    """The lab follows references: a router on a physical switch that does not exist crashed its plan."""
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))
    path = write(tmp_path, HEAD + """\
hosts:
- {id: h1, name: esx01, pnics: [{id: p1, name: vmnic0}]}
switches:
- {id: s1, name: vs0, host: h1, uplinks: [{pnic: p1}], portgroups: [{id: pg, name: PG, vlan: 10}]}
physical_switches:
- {id: ps, name: core, ports: [{id: port1, name: g1, mode: trunk}]}
links:
- {id: l1, a: p1, b: port1}
vms:
- {id: v1, name: web01, host: h1, vnics: [{id: n1, name: eth0, network: pg, ip: 10.0.0.5/24}]}
physical_routers:
- {id: r1, name: r1, switch: nosuch, interfaces: [{id: i1, name: Vlan10, ip: 10.0.0.1/24, vlan: 10}]}
""")
    refused(cli("lab", "plan", path), "physical_routers[0].switch", "does not exist")


@pytest.mark.parametrize("place", ["{x: 1.0e+19, y: 0}", "{x: 1.0e+308, y: 1.0e+308, w: 1.0e+308, h: 1.0e+308}",
                                   "{x: -5000000, y: 0}", "{x: 0, y: 0, w: -1, h: 20}"])
def test_coordinates_out_of_range_are_refused_by_validate_and_export(tmp_path, place):
    path = write(tmp_path, HEAD + f"hosts:\n- {{id: h1, name: esx01}}\nlayout:\n  places:\n    h1: {place}\n")
    proc = cli("validate", path)
    assert proc.returncode == 1 and "layout.places.h1" in proc.stdout and "Traceback" not in proc.stderr
    refused(cli("export", path, "--format", "png", "-o", str(tmp_path / "out.png")), "layout.places.h1")


def test_a_note_far_off_the_canvas_is_refused_too(tmp_path):
    path = write(tmp_path, HEAD + "layout:\n  notes:\n  - {id: n1, text: hi, x: 1.0e+300, y: 1.0e+300}\n")
    assert validate(loads(Path(path).read_text()))[0].path == "layout.notes[0].x"


def test_control_characters_in_names_never_reach_an_export(tmp_path):
    path = write(tmp_path, '{"format_version": 1, "id": "t", "name": "lab\\u001b[31m\\u0007", '
                           '"hosts": [{"id": "h1", "name": "esx\\u001b01\\u0000"}]}', "d.vnet.json")
    for fmt in ("svg", "drawio"):
        out = tmp_path / f"out.{fmt}"
        proc = cli("export", path, "--format", fmt, "-o", str(out))
        assert proc.returncode == 0, proc.stderr
        text = ET.parse(out).getroot()  # a real XML parser reads it
        assert "esx01" in ET.tostring(text, encoding="unicode")


# --- 13-18: what the parsers meet ------------------------------------------------------------------------------

BIG = "9" * 5000


@pytest.mark.parametrize("text", [
    HEAD + f"hosts: [{{id: h, name: n, cpus: {BIG}}}]\n",
    f'{{"format_version": 1, "id": "t", "hosts": [{{"id": "h", "name": "n", "cpus": {BIG}}}]}}',
    HEAD + f"switches: [{{id: s, name: n, kind: vds, portgroups: [{{id: p, name: p, vlan: 'trunk 10-{BIG}'}}]}}]\n",
    HEAD + "hosts: [{id: h, name: n, cpus: 0b" + "1" * 20000 + "}]\n",
    HEAD + "hosts: [{id: h, name: n, cpus: 0x" + "f" * 4000 + "}]\n",
])
def test_numbers_with_thousands_of_digits_are_refused(tmp_path, text):
    refused(cli("validate", write(tmp_path, text)), "digits", "line 3" if text.startswith("format") else "line 1")


def test_a_lone_surrogate_is_refused_with_its_place(tmp_path):
    path = write(tmp_path, '{"format_version": 1, "id": "t", "hosts": [{"id": "h", "name": "\\udfff"}]}',
                 "d.vnet.json")
    refused(cli("validate", path), "hosts[0].name", "surrogate")


@pytest.mark.parametrize("style", ["flow", "block", "json"])
def test_deep_nesting_is_refused_before_the_parser_recurses(tmp_path, style):
    n = 30_000
    text = {"flow": HEAD + "hosts: " + "[" * n + "]" * n + "\n",
            "block": HEAD + "hosts:\n" + "- " * n + "x\n",
            "json": '{"format_version": 1, "id": "t", "hosts": ' + "[" * n + "]" * n + "}"}[style]
    refused(cli("validate", write(tmp_path, text)), "nested")


def test_a_duplicate_key_is_refused_with_its_line(tmp_path):
    text = HEAD + "vms:\n- {id: a, name: a}\nhosts: []\nvms: []\n"
    refused(cli("validate", write(tmp_path, text)), "line 6", "'vms'", "twice", "line 3")
    inner = HEAD + "hosts:\n- id: h\n  name: a\n  name: b\n"
    refused(cli("validate", write(tmp_path, inner)), "line 6", "'name'")
    as_json = '{"format_version": 1, "id": "t",\n "vms": [],\n "vms": [{"id": "a", "name": "a"}]}'
    refused(cli("validate", write(tmp_path, as_json, "d.vnet.json")), "line 3", "'vms'", "twice")


def test_flow_style_yaml_that_starts_with_a_brace_is_read_as_yaml(tmp_path):
    proc = cli("validate", write(tmp_path, "{format_version: 1, id: t, hosts: [{id: h, name: esx01}]}\n"))
    assert proc.returncode == 0 and "no problems" in proc.stdout, proc.stderr
    refused(cli("validate", write(tmp_path, "{format_version: 1, id: [t}\n")), "JSON", "YAML", "line 1")


def test_special_files_are_refused_without_reading_them(tmp_path):
    refused(cli("validate", "/dev/zero", timeout=20), "not a regular file")   # reading it would never end
    fifo = tmp_path / "pipe.vnet.yaml"
    os.mkfifo(fifo)
    refused(cli("validate", str(fifo), timeout=20), "not a regular file")
    refused(cli("validate", str(tmp_path), timeout=20), "folder")


# --- 19: messages --------------------------------------------------------------------------------------------


def test_messages_are_one_printable_bounded_line_with_line_and_column(tmp_path):
    esc = write(tmp_path, HEAD + "hosts: [{id: h, name: \"a\\e[2J\\a\\0\", kind: \"\\e]0;pwned\\a" + "x" * 5000 + "\"}]\n")
    refused(cli("validate", esc), "hosts[0].kind", "\\x1b")
    raw = write(tmp_path, HEAD + "name: a\x1bb\n")
    err = refused(cli("validate", raw), "line 3, column 8")
    assert "<unicode string>" not in err and "position" not in err
    tab = write(tmp_path, HEAD + "hosts:\n\t- {id: h}\n")
    refused(cli("validate", tab), "line 4")


def test_a_reference_echoing_control_characters_stays_printable(tmp_path):
    path = write(tmp_path, '{"format_version": 1, "id": "t", "vms": [{"id": "v", "name": "w\\u001b[31m", '
                           '"host": "nowhere\\u0007"}]}', "d.vnet.json")
    proc = cli("validate", path)
    assert proc.returncode == 1
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout and "\\x1b" in proc.stdout


# --- 21: size limits ----------------------------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.vnet.yaml"
    with open(path, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    refused(cli("validate", str(path)), "MiB")     # the size check, from stat: the message names the limit


@pytest.mark.parametrize("style", ["json", "yaml"])
def test_millions_of_containers_are_refused_early(tmp_path, style):
    n = MAX_CONTAINERS + 10
    text = ('{"format_version": 1, "id": "t", "hosts": [' + "[]," * n + "[]]}" if style == "json"
            else HEAD + "hosts:\n" + "- []\n" * n)
    refused(cli("validate", write(tmp_path, text, f"d.vnet.{style}")), "mappings and lists")


def test_the_loader_refuses_in_process_too():
    with pytest.raises(FormatError) as err:
        loads(HEAD + "vms: []\nvms: []\n")
    assert "line 4" in str(err.value)
    assert json.loads(json.dumps(str(err.value)))  # plain text


def test_a_command_error_echoing_a_name_is_printable(tmp_path, monkeypatch):
    """The lab says which VM is not deployed, by its name, which here holds ESC and BEL (nothing is deployed)."""
    monkeypatch.setenv("VNETBENCH_LAB_DIR", str(tmp_path / "lab"))
    path = write(tmp_path, '{"format_version": 1, "id": "never-deployed-9f3", "hosts": [{"id": "h", "name": "esx"}], '
                           '"vms": [{"id": "v", "name": "web\\u001b[2J\\u0007", "host": "h"}]}', "d.vnet.json")
    proc = cli("lab", "exec", path, "v", "--", "true")
    assert proc.returncode == 3 and "Traceback" not in proc.stderr, proc.stderr
    assert "not deployed" in proc.stderr and "\\x1b" in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr[:-1].isprintable(), repr(proc.stderr)
