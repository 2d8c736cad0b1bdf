"""Fuzzing the way in: generated and damaged design files at the loader, and what loads through everything.

Two tiers; each test's budget below is its share under ``pytest --hypothesis-profile=deep`` (10,000 files
in all); the default ``ci`` profile runs the same shares of its smaller budget, so CI stays quick:

- the loader tier throws at least 10,000 files at the loader: the only failure allowed is a ``FormatError``
  whose message is one printable line of bounded length; whatever loads must go through validation and the
  prediction's lint (``vnetbench validate``) with no check failing (and round-trip, where that is affordable);
- the pipeline tier feeds damaged copies of the examples, covering each class of issue 12 (ids colliding
  across kinds, references to the wrong kind, huge and non-finite numbers, control characters and
  surrogates, duplicate keys, flow style), and sends *every* input that loads through validation, the
  verdict matrix, the local lab's plan of what it would build, and every export writer, reading each output
  back with a real parser: an XML parser for
  SVG and draw.io, Qt's image reader for PNG, ``pdftotext`` for PDF, Graphviz ``dot`` for DOT, the csv and
  json modules, Python's HTML parser for the report. Deep nesting and special files have their own cases.
"""

from __future__ import annotations

import copy
import csv
import html.parser
import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vnetbench import resources_dir
from vnetbench.export import FORMATS, ExportError, Options, export
from vnetbench.measure.context import make_run
from vnetbench.measure.result import Measurement, Sample
from vnetbench.measure.spec import TestKind, TestSpec
from vnetbench.model import FormatError, Topology, dumps, load, loads
from vnetbench.model.fileformat import MAX_FILE_BYTES
from vnetbench.model.index import walk
from vnetbench.model.text import MESSAGE_LIMIT
from vnetbench.model.validate import drawing_errors, reference_errors, validate
from vnetbench.predict import Engine
from vnetbench.predict.lint import check
from vnetbench_local import LocalLabBackend

DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
EXAMPLES = sorted((resources_dir() / "examples").glob("*.vnet.yaml"))
EXAMPLE_TEXTS = [p.read_text(encoding="utf-8") for p in EXAMPLES]
EXAMPLE_DATA = [yaml.safe_load(t) for t in EXAMPLE_TEXTS]

RUNS = {"text": 1000, "bytes": 500, "data": 1500, "mutated": 3200, "edited_text": 1300, "yaml_traps": 1000,
        "classes": 1500}
TOTAL = sum(RUNS.values())
PIPELINE_RUNS = 250


def fuzz(n: int):
    """``n`` examples under the deep profile; the loaded profile's share of them otherwise (ci: 3%)."""
    share = settings.default.max_examples / settings.get_profile("deep").max_examples
    return settings(max_examples=max(3, round(n * share)))


def refused_cleanly(exc: FormatError) -> None:
    """What a person reads: one printable line, bounded."""
    text = str(exc)
    assert text and text.isprintable() and len(text) <= MESSAGE_LIMIT, repr(text[:200])


def linted(topology: Topology) -> None:
    """What ``vnetbench validate`` runs: validation and lint. A check that raises is reported as a problem
    ("... could not run"), not raised, so the fuzz looks for that problem."""
    broken = [p.message for p in check(topology) if "could not run" in p.message]
    assert not broken, broken


def survive(text: str, round_trip: bool = True) -> Topology | None:
    """Load ``text``; a design that loads must validate and lint (and round-trip: skipped where it costs most)."""
    try:
        topology = loads(text)
    except FormatError as exc:
        refused_cleanly(exc)
        return None
    linted(topology)
    if round_trip:
        assert loads(dumps(topology)) == topology
    return topology


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(), st.text(max_size=20),
                    st.sampled_from(["vss", "vds", "esxi", "kvm", "vmxnet3", "e1000e", "trunk 10-20", "4095",
                                     "10.0.0.1/24", "any", "all", "bridged", "routed", "deny", "h1", "pg1"]))
plain = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.text(max_size=12), st.integers()), inner, max_size=4)),
    max_leaves=25)


def as_text(data, style: int) -> str:
    """0: JSON, 1: block YAML, 2: flow YAML (which starts with ``{`` like JSON but is not JSON)."""
    if style == 0:
        return json.dumps(data, default=str)
    return yaml.dump(data, Dumper=DUMPER, default_flow_style=style == 2, allow_unicode=True)


# --- the loader tier -----------------------------------------------------------------------------------------


@fuzz(RUNS["text"])
@given(st.text(max_size=300))
def test_random_text(text):
    survive(text)


@fuzz(RUNS["bytes"])
@given(st.binary(max_size=300))
def test_random_bytes_from_a_file(raw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "junk.vnet.yaml"
        path.write_bytes(raw)
        try:
            topology = load(path)
        except FormatError as exc:
            refused_cleanly(exc)
            return
        linted(topology)


@fuzz(RUNS["data"])
@given(plain, st.integers(0, 2), st.booleans())
def test_random_structures(data, style, as_design):
    if as_design:  # give the junk a valid head so the decoder, not the version check, meets it
        data = {"format_version": 1, "id": "x", "hosts": data} if not isinstance(data, dict) else \
            {"format_version": 1, "id": "x", **{str(k): v for k, v in data.items()}}
    survive(as_text(data, style))


def _paths(node, prefix=()):
    """Every (container, key) place in a plain-data tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield prefix + (k,)
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield prefix + (i,)
            yield from _paths(v, prefix + (i,))


EXAMPLE_PATHS = [list(_paths(d)) for d in EXAMPLE_DATA]


@st.composite
def mutated_examples(draw):
    which = draw(st.integers(0, len(EXAMPLE_DATA) - 1))
    data = copy.deepcopy(EXAMPLE_DATA[which])
    for _ in range(draw(st.integers(1, 4))):
        place = draw(st.sampled_from(EXAMPLE_PATHS[which]))
        parent = data
        try:
            for key in place[:-1]:
                parent = parent[key]
            key = place[-1]
            parent[key]  # noqa: B018 - the place may be gone after an earlier mutation
        except (KeyError, IndexError, TypeError):
            continue
        if not isinstance(parent, (dict, list)):  # an earlier mutation made it text, which reads but not writes
            continue
        action = draw(st.sampled_from(["replace", "delete", "unknown-key", "huge", "wrong-type", "duplicate"]))
        if action == "replace":
            parent[key] = draw(plain)
        elif action == "delete":
            del parent[key]
        elif action == "unknown-key" and isinstance(parent[key], dict):
            parent[key][draw(st.text(min_size=1, max_size=8))] = draw(scalars)
        elif action == "huge":
            parent[key] = draw(st.sampled_from([10**30, -(10**30), 2**53 + 1, 1e308, -1e308, float("inf"), 4096]))
        elif action == "wrong-type":
            parent[key] = draw(st.sampled_from([[], {}, "", True, 0, 1.5, None, "x" * 200]))
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return data


@fuzz(RUNS["mutated"])
@given(mutated_examples(), st.integers(0, 2))
def test_mutated_examples(data, style):
    survive(as_text(data, style), round_trip=False)


@fuzz(RUNS["edited_text"])
@given(st.integers(0, len(EXAMPLE_TEXTS) - 1), st.lists(st.tuples(st.floats(0, 1), st.integers(0, 40),
                                                                   st.text(max_size=6)), min_size=1, max_size=4))
def test_edited_example_text(which, edits):
    text = EXAMPLE_TEXTS[which]
    for where, cut, insert in edits:
        i = int(where * len(text))
        text = text[:i] + insert + text[i + cut:]
    survive(text)


TRAPS = [
    "a: &x [1, 2]\nb: *x\n",  # aliases
    "format_version: 1\nid: t\nhosts: &h [{id: a, name: b}]\nswitches: *h\n",
    "a: &a [*a]\n",  # a cycle
    "format_version: 1\nid: t\nname: !!python/object/apply:os.system ['true']\n",
    "format_version: 1\nid: !!binary aGVsbG8=\n",
    "format_version: 1\nid: t\nname: 2024-01-01\n",
    "format_version: 1\nid: t\nhosts: !!set {a, b}\n",
    "format_version: 1\nid: t\nlayout: {places: {? [1, 2] : {x: 1}}}\n",
    "format_version: 1.0\nid: t\n",
    "format_version: 99999999999999999999999\nid: t\n",
    "format_version: 0\nid: t\nhosts: 5\nvms: [{vnics: 3}]\nlayout: {places: []}\n",
    "format_version: 0\nid: t\nvms: [{id: v, x: 1, y: [1]}]\nlayout: []\n",
    "format_version: 1\nid: t\nhosts: [{id: h, name: n, cpus: 1e999}]\n",
    "---\nformat_version: 1\n---\nformat_version: 1\n",
    "%YAML 1.1\n%TAG ! tag:x,2000:\n---\n!foo {}\n",
    "\ufeffformat_version: 1\nid: bom\n",
    "format_version: 1\nid: t\nvms: []\nvms: [{id: v, name: v}]\n",  # a duplicate key
    "format_version: 1\nid: t\n<<: {name: merged}\n",
    '{"format_version": 1, "id": "t", "id": "u"}',
    "{format_version: 1, id: t, hosts: [{id: h, name: esx01}]}",  # flow style YAML
    '{"format_version": 1, "id": "t", "name": "\\udfff"}',
    '{"format_version": 1, "id": "t", "hosts": [{"id": "h", "cpus": ' + "7" * 5000 + "}]}",
    "format_version: 1\nid: t\nhosts: [{id: h, cpus: 0b" + "1" * 5000 + "}]\n",
    "format_version: 1\nid: t\nname: a\x1b[31mb\x07\n",
    # a router VM whose gateway nothing owns, a negative hardware version on an adapter with no minimum
    "format_version: 1\nid: t\nhosts: [{id: h, name: esx01}]\nswitches: [{id: s, name: vSwitch0, host: h, "
    "portgroups: [{id: p, name: pg}]}]\nvms: [{id: r, name: r1, host: h, role: router, vnics: [{id: n, name: eth0, "
    "network: p, ip: 10.0.0.2/24, gateway: 10.0.0.1}]}]\n",
    "format_version: 1\nid: t\nhosts: [{id: h, name: esx01}]\nswitches: [{id: s, name: vSwitch0, host: h, "
    "portgroups: [{id: p, name: pg}]}]\nvms: [{id: v, name: v1, host: h, hardware_version: -3, vnics: [{id: n, "
    "name: eth0, type: e1000, network: p}]}]\n",
]


@st.composite
def yaml_traps(draw):
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.sampled_from(TRAPS))
    if kind == 1:  # deep nesting, in flow and block style
        depth = draw(st.integers(1, 3000))
        if draw(st.booleans()):
            return "format_version: 1\nid: t\nhosts:\n" + "- " * depth + "x\n"
        return "format_version: 1\nid: t\nhosts: " + "[" * depth + "]" * draw(st.sampled_from([depth, depth - 1]))
    if kind == 2:  # billion laughs, small
        levels = draw(st.integers(1, 8))
        lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
        lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
        return "\n".join(lines) + "\n"
    fragment = draw(st.sampled_from(TRAPS))
    i = draw(st.integers(0, len(fragment)))
    return fragment[:i] + draw(st.sampled_from(["{", "[", "&", "*", ":", "!!", "'", '"', "\t", "\x00", "%",
                                                "\x1b", "\\u", "- "])) + fragment[i:]


@fuzz(RUNS["yaml_traps"])
@given(yaml_traps())
def test_yaml_traps(text):
    survive(text)


# --- the classes of issue 12, on the examples ----------------------------------------------------------------

#: Fields that refer to another object, and the kinds they must point at (see model/validate.py).
REFERENCES = [("switches", "host"), ("vms", "host"), ("physical_routers", "switch"), ("links", "a"),
              ("links", "b")]
NASTY_TEXT = ["\x1b[31m", "\x00", "\x07", "\u202e", "\udfff", "\ud83d", "\r\n", "\t", "\x7f", "\x85", "\ufffe",
              "<&\"'>", "]]>", "{{x}}", "%s", "--", "\\", "\"quoted\"", "cluster_", "\u0301\u0301", "\U0001f600"]
LONG_TEXT = "x" * 300  # beyond the name limit: refused by validation and every export
HUGE = [10**30, 2**53 + 1, 1e308, -1e308, 1e19, float("inf"), float("nan"), -0.0, 5e6, 999_999.0, -99_999.5, 0.0]


def _ids(data: dict) -> list[str]:
    """Every id in a plain design, found the way the model finds them."""
    try:
        return [entry.obj.id for entry in walk(loads(json.dumps(data)))]
    except FormatError:
        return []


#: The damage classes, as often as each is drawn. The pipeline tier favours damage a design can be drawn
#: with, so most of its inputs reach every writer (ids colliding and wrong kinds make export refuse).
CLASSES = ["collide", "wrong-kind", "wrong-kind", "coordinates", "huge", "text", "text", "text"]
DRAWABLE_CLASSES = ["collide", "wrong-kind", "coordinates", "huge", *["text"] * 8]


@st.composite
def damaged_examples(draw, pool: list[str] = CLASSES):
    """The text of an example with one or more of the issue's damage classes applied."""
    which = draw(st.integers(0, len(EXAMPLE_DATA) - 1))
    data = copy.deepcopy(EXAMPLE_DATA[which])
    ids = _ids(data) or ["x"]
    rnd = random.Random(draw(st.integers(0, 2**32)))
    classes = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2))
    for cls in classes:
        if cls == "collide":  # an object takes the id of an object of another kind
            section = rnd.choice([k for k in ("hosts", "switches", "vms", "physical_switches") if data.get(k)]
                                 or ["hosts"])
            items = data.setdefault(section, [])
            if items:
                rnd.choice(items)["id"] = rnd.choice(ids)
        elif cls == "wrong-kind":
            section, field = rnd.choice(REFERENCES)
            items = data.get(section) or []
            if items:
                rnd.choice(items)[field] = rnd.choice(ids)
            for vm in data.get("vms") or []:
                for nic in vm.get("vnics") or []:
                    if rnd.random() < 0.2:
                        nic["network"] = rnd.choice(ids)
        elif cls == "coordinates":
            places = data.setdefault("layout", {}).setdefault("places", {})
            target = rnd.choice(ids)
            places[target] = {"x": rnd.choice(HUGE + [10.0]), "y": rnd.choice(HUGE + [20.0]),
                              **({"w": rnd.choice(HUGE), "h": 40.0} if rnd.random() < 0.5 else {})}
        elif cls == "huge":
            place = rnd.choice(EXAMPLE_PATHS[which])
            parent = data
            try:
                for key in place[:-1]:
                    parent = parent[key]
                if not isinstance(parent[place[-1]], (dict, list)):
                    parent[place[-1]] = rnd.choice(HUGE)
            except (KeyError, IndexError, TypeError):
                pass
        else:  # names (and ids) with what no format can hold
            for section in ("hosts", "switches", "vms", "physical_switches"):
                for item in data.get(section) or []:
                    if rnd.random() < 0.5:
                        nasty = LONG_TEXT if rnd.random() < 0.03 else rnd.choice(NASTY_TEXT)
                        item["name"] = str(item.get("name", "")) + nasty
            data["name"] = rnd.choice(NASTY_TEXT) + str(data.get("name", ""))
            data["description"] = rnd.choice(NASTY_TEXT)
    style = draw(st.integers(0, 2))
    text = as_text(data, style) if style == 0 else _yaml_or_json(data, style)
    if draw(st.integers(0, 9)) == 0:  # a duplicate key, appended as its own line
        text = text + ("\nvms: []\n" if style == 1 else "")
    return text


def _yaml_or_json(data: dict, style: int) -> str:
    """YAML cannot write a lone surrogate: such designs travel as JSON, as they would in the wild."""
    try:
        return as_text(data, style)
    except (UnicodeEncodeError, yaml.YAMLError):
        return as_text(data, 0)


@fuzz(RUNS["classes"])
@given(damaged_examples())
def test_damage_classes_at_the_loader(text):
    survive(text, round_trip=False)


def test_the_fuzz_budget_is_at_least_10000():
    assert TOTAL >= 10_000 and len(EXAMPLES) >= 7


# --- special files ---------------------------------------------------------------------------------------------


def test_special_files_are_refused_before_reading(tmp_path):
    fifo = tmp_path / "fifo.vnet.yaml"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock.vnet.yaml"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    huge = tmp_path / "huge.vnet.yaml"
    with open(huge, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    try:
        for path in ("/dev/zero", "/dev/null", "/dev/urandom", str(fifo), str(sock_path), str(tmp_path), str(huge)):
            with pytest.raises(FormatError) as err:
                load(path)
            refused_cleanly(err.value)
    finally:
        sock.close()


# --- the pipeline tier -----------------------------------------------------------------------------------------

PIPELINE = {"inputs": 0, "loaded": 0, "drawable": 0, "exported": 0}


def _run(topology: Topology) -> list:
    """A measured run between the design's first two VMs, so the results writers and the report draw one."""
    vms = topology.vms
    if len(vms) < 2:
        return []
    m = Measurement(TestSpec(TestKind.THROUGHPUT), "iperf3", [f"iperf3 -c {vms[1].name}"],
                    [Sample(0.5, 940.0, ""), Sample(1.0, 941.0, "")],
                    {"throughput_mbps": 940.5, "sender_mbps": 941.0}, 1_700_000_000.0, 1_700_000_002.0)
    return [make_run(m, topology, vms[0].id, vms[1].id, None, label=vms[0].name)]


def _no_controls(text: str) -> None:
    assert not any(ord(c) < 32 and c not in "\t\n\r" for c in text), repr(text[:200])


def read_back(fmt: str, path: Path) -> None:
    """Parse one export with a real reader for its format; AssertionError or the parser's error if broken."""
    suffix = fmt.rsplit("-", 1)[-1]
    data = path.read_bytes()
    assert data, f"{fmt}: empty file"
    if suffix in ("svg", "drawio"):
        ET.fromstring(data)
    elif suffix == "png":
        from PySide6.QtGui import QImage

        assert not QImage.fromData(data, "PNG").isNull(), f"{fmt}: not a PNG"
    elif suffix == "pdf":
        proc = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
    elif fmt == "dot":
        proc = subprocess.run(["dot", "-Tsvg"], input=data, capture_output=True, timeout=60)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        ET.fromstring(proc.stdout)
    elif suffix == "csv":
        list(csv.reader(data.decode("utf-8").splitlines()))
    elif suffix == "json":
        json.loads(data)
    elif suffix == "html":
        text = data.decode("utf-8")
        _no_controls(text)
        html.parser.HTMLParser().feed(text)
    elif fmt == "mermaid":  # no Mermaid parser in Debian: its lines must be plain and its labels closed
        text = data.decode("utf-8")
        _no_controls(text)
        assert all(line.count('"') % 2 == 0 for line in text.splitlines() if not line.startswith("title")), text
    else:
        raise AssertionError(f"no reader for {fmt}")


def through_everything(topology: Topology, folder: Path) -> None:
    """Validate, the verdict matrix, the lab it would deploy, and every export writer read back; designs
    with drawing or reference errors are refused cleanly."""
    validate(topology)
    Engine(topology).matrix()
    lab = LocalLabBackend({"mode": "root", "state_dir": str(folder / "lab")})
    reasons = lab.unsupported(topology)
    assert not reference_errors(topology) or reasons
    if not reasons:
        lab.desired(topology)
    options = Options(runs=_run(topology))
    vms = [vm.id for vm in topology.vms]
    if len(vms) >= 2:
        options.path = (vms[0], vms[-1])
        options.pairs = [(vms[0], vms[-1])]
    blocked = bool(drawing_errors(topology))
    PIPELINE["drawable"] += not blocked
    for fmt, (_, suffix) in FORMATS.items():
        out = folder / f"design{suffix}"
        try:
            export(topology, fmt, out, options)
        except ExportError as exc:
            assert blocked or "path" in str(exc), f"{fmt}: {exc}"
            assert str(exc).isprintable()
            continue
        assert not blocked, f"{fmt} exported a design with drawing errors"
        read_back(fmt, out)
        PIPELINE["exported"] += 1


@fuzz(PIPELINE_RUNS)
@given(damaged_examples(DRAWABLE_CLASSES))
def test_every_loaded_input_goes_through_validate_matrix_and_every_writer(text):
    PIPELINE["inputs"] += 1
    topology = survive(text, round_trip=False)
    if topology is None:
        return
    PIPELINE["loaded"] += 1
    with tempfile.TemporaryDirectory() as folder:
        through_everything(topology, Path(folder))


def test_the_pipeline_tier_met_loaded_designs():
    """Run after the pipeline tier (file order): most damaged examples must load, or it tests nothing."""
    if PIPELINE["inputs"] == 0:
        pytest.skip("the pipeline tier did not run in this session")
    print("pipeline tier:", PIPELINE)
    assert PIPELINE["loaded"] >= PIPELINE["inputs"] // 3, PIPELINE
    assert PIPELINE["exported"] >= PIPELINE["drawable"] * 4, PIPELINE   # a design with drawing errors exports nothing


def test_the_readers_are_installed():
    """The parsers the pipeline tier reads outputs with; setup installs them (poppler-utils, graphviz)."""
    missing = [tool for tool in ("pdftotext", "dot") if shutil.which(tool) is None]
    assert not missing, f"install {', '.join(missing)} (scripts/setup.sh test does)"
