"""Throw at least 10,000 generated files at the loader: the only failure allowed is a ``FormatError``.

Each test states its ``max_examples``; ``TOTAL`` adds them up and a test checks the sum stays >= 10,000.
Whatever loads must also validate, save and load again without an exception, since the designer and the CLI
do exactly that with any file a person opens.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vnetbench import resources_dir
from vnetbench.model import FormatError, dumps, load, loads
from vnetbench.model.validate import validate

DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
EXAMPLES = sorted((resources_dir() / "examples").glob("*.vnet.yaml"))
EXAMPLE_TEXTS = [p.read_text(encoding="utf-8") for p in EXAMPLES]
EXAMPLE_DATA = [yaml.safe_load(t) for t in EXAMPLE_TEXTS]

RUNS = {"text": 1500, "bytes": 700, "data": 2000, "mutated": 3300, "edited_text": 1500, "yaml_traps": 1000}
TOTAL = sum(RUNS.values())


def fuzz(n: int):
    return settings(max_examples=n, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large, HealthCheck.large_base_example])


def survive(text: str, round_trip: bool = True) -> None:
    """Load ``text``; a design that loads must validate (and round-trip: skipped where it costs most)."""
    try:
        topology = loads(text)
    except FormatError as exc:
        assert str(exc)  # a message a person can read
        return
    validate(topology)
    if round_trip:
        assert loads(dumps(topology)) == topology


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(), st.text(max_size=20),
                    st.sampled_from(["vss", "vds", "esxi", "kvm", "vmxnet3", "e1000e", "trunk 10-20", "4095",
                                     "10.0.0.1/24", "any", "all", "bridged", "routed", "deny", "h1", "pg1"]))
plain = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.text(max_size=12), st.integers()), inner, max_size=4)),
    max_leaves=25)


def as_text(data, style: int) -> str:
    if style == 0:
        return json.dumps(data, default=str)
    return yaml.dump(data, Dumper=DUMPER, default_flow_style=style == 2)


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
        except FormatError:
            return
        validate(topology)


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
]


@st.composite
def yaml_traps(draw):
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.sampled_from(TRAPS))
    if kind == 1:  # deep nesting, in flow and block style
        depth = draw(st.integers(1, 3000))
        return "format_version: 1\nid: t\nhosts: " + "[" * depth + "]" * draw(st.sampled_from([depth, depth - 1]))
    if kind == 2:  # billion laughs, small
        levels = draw(st.integers(1, 8))
        lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
        lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
        return "\n".join(lines) + "\n"
    fragment = draw(st.sampled_from(TRAPS))
    i = draw(st.integers(0, len(fragment)))
    return fragment[:i] + draw(st.sampled_from(["{", "[", "&", "*", ":", "!!", "'", '"', "\t", "\x00", "%"])) + \
        fragment[i:]


@fuzz(RUNS["yaml_traps"])
@given(yaml_traps())
def test_yaml_traps(text):
    survive(text)


def test_the_fuzz_budget_is_at_least_10000():
    assert TOTAL >= 10_000 and len(EXAMPLES) >= 7
