"""Mutation check of the decision code: does every mutant that changes a verdict fail the agreement tests?

A small AST mutator (no third-party tool): it flips comparisons (``==``/``!=``, ``<``/``>=``, ``in``/``not in``,
``is``/``is not``), swaps ``and``/``or``, ``+``/``-`` and ``&``/``|``, negates conditions, drops a ``not``, flips
booleans, shifts small integers, swaps verdict and action names (``Verdict.BLOCKED`` -> ``Verdict.UNREACHABLE``,
``Action.ALLOW`` <-> ``Action.DENY``) and drops statements. Each mutant is written into a copy of
``app/vnetbench`` (the tree is never edited) and judged in subprocesses, each with a timeout:

1. does it change a verdict? The matrix's and the walk's verdict for every pair (and TCP/443 through the walk) of
   the bundled examples and of random designs (``tests/unit/random_designs.py``) are compared with the unmutated
   code's. A mutant that crashes or hangs there counts as changing them;
2. if so, do the agreement tests (``--tests``) fail? Then the mutant is killed.

The score is killed / verdict-changing; survivors are listed with file:line, the mutation and one verdict it
changed. Run from the repository root:

    .venv/bin/python tests/bench/bench_mutation.py                      # every mutant of the default targets
    .venv/bin/python tests/bench/bench_mutation.py --sample 40 --seed 7 # a random sample
    .venv/bin/python tests/bench/bench_mutation.py --target app/vnetbench/predict/core.py --list

A target is ``path`` (every function) or ``path:name,Class.method`` (only those). The default is the decision
code: the one decision core ``predict/decide.py``, the rule-matching checks of ``predict/rules.py`` and the
forwarding facts of ``model/forwarding.py``. The walk and the matrix share all of it, so walk-vs-matrix agreement
cannot catch a mutant there: the tests that pin verdicts (recorded verdicts, examples, the core's truth tables) do.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TARGETS = ("app/vnetbench/predict/decide.py",
                   "app/vnetbench/predict/rules.py:spec_matches,_port_matches,_proto_matches,generic,rule_matches",
                   "app/vnetbench/model/forwarding.py")
#: The agreement tests, the quickest to fail first (pytest stops at the first failure).
DEFAULT_TESTS = ("tests/unit/test_examples_verdicts.py",
                 "tests/unit/test_predict_decide.py",
                 "tests/unit/test_predict_rules.py",
                 "tests/unit/test_predict_matrix.py::test_walk_and_matrix_answer_like_the_recorded_verdicts",
                 "tests/unit/test_predict_matrix.py::test_matrix_equals_per_pair_predict",
                 "tests/unit/test_predict_matrix.py::test_matrix_equals_per_pair_predict_with_rules_per_vm")

_FLIP = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
_BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd}
#: Names swapped for their closest neighbour: the subtle mistakes (blocked for unreachable, routed or not).
_NAMES = {"Verdict": {"IN_HOST": "IN_HOST_ROUTED", "IN_HOST_ROUTED": "IN_HOST", "VIA_PHYSICAL": "ROUTED_VIA_PHYSICAL",
                      "ROUTED_VIA_PHYSICAL": "VIA_PHYSICAL", "UNREACHABLE": "BLOCKED", "BLOCKED": "UNREACHABLE"},
          "Action": {"ALLOW": "DENY", "DENY": "ALLOW"}}
_DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.Continue, ast.Break, ast.Return)


@dataclass(frozen=True)
class Mutant:
    path: str        # relative to the repository root
    index: int       # the site's number in the module
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


class _Mutator(ast.NodeTransformer):
    """Visits the mutation sites of a module in a fixed order; ``target`` (a site number) is mutated, the others
    only counted (``sites`` lists them all)."""

    def __init__(self, functions: set[str] | None, target: int = -1) -> None:
        self.functions, self.target = functions, target
        self.sites: list[tuple[int, str]] = []
        self.scope: list[str] = []

    def _site(self, node: ast.AST, what: str) -> bool:
        """Count a site; True when it is the one to mutate."""
        if self.functions is not None and not any(".".join(self.scope[:i + 1]) in self.functions
                                                  for i in range(len(self.scope))):
            return False
        self.sites.append((getattr(node, "lineno", 0), what))
        return len(self.sites) - 1 == self.target

    def _scoped(self, node):  # noqa: ANN001, ANN202 - a class or function node
        self.scope.append(node.name)
        node.body = self._body(node.body)
        self.scope.pop()
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return self._scoped(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:   # annotations and defaults stay
        return self._scoped(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for stmt in body:
            docstring = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and \
                isinstance(stmt.value.value, str)
            if isinstance(stmt, _DROPPABLE) and not docstring and self._site(stmt, f"drop `{_short(stmt)}`"):
                out.append(ast.copy_location(ast.Pass(), stmt))
                continue
            out.append(stmt if docstring else self.visit(stmt))
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(node, field, None), list) and all(isinstance(s, ast.stmt) for s in getattr(node, field)):
                setattr(node, field, self._body(getattr(node, field)))
        for field, value in ast.iter_fields(node):
            if field in ("body", "orelse", "finalbody") and isinstance(value, list) and \
                    all(isinstance(s, ast.stmt) for s in value):
                continue
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def visit_If(self, node: ast.If) -> ast.AST:
        node = self.generic_visit(node)
        if self._site(node, f"negate `if {_short(node.test)}`"):
            node.test = ast.UnaryOp(ast.Not(), node.test)
        return node

    visit_While = visit_If

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        node = self.generic_visit(node)
        if self._site(node, f"negate `{_short(node.test)}` in a conditional expression"):
            node.test = ast.UnaryOp(ast.Not(), node.test)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = self.generic_visit(node)
        for i, op in enumerate(node.ops):
            flipped = _FLIP.get(type(op))
            if flipped and self._site(node, f"`{_short(node)}`: {_op(op)} -> {_op(flipped())}"):
                node.ops[i] = flipped()
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        node = self.generic_visit(node)
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        if self._site(node, f"`{_short(node)}`: {_op(node.op)} -> {_op(other)}"):
            node.op = other
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        node = self.generic_visit(node)
        other = _BINOP.get(type(node.op))
        if other and self._site(node, f"`{_short(node)}`: {_op(node.op)} -> {_op(other())}"):
            node.op = other()
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        node = self.generic_visit(node)
        if isinstance(node.op, ast.Not) and self._site(node, f"drop the not of `{_short(node)}`"):
            return node.operand
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if isinstance(node.value, bool):
            if self._site(node, f"{node.value} -> {not node.value}"):
                return ast.copy_location(ast.Constant(not node.value), node)
        elif isinstance(node.value, int) and 0 <= node.value <= 64:
            if self._site(node, f"{node.value} -> {node.value + 1}"):
                return ast.copy_location(ast.Constant(node.value + 1), node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        node = self.generic_visit(node)
        names = _NAMES.get(node.value.id) if isinstance(node.value, ast.Name) else None
        if names and node.attr in names:
            other = names[node.attr]
            if self._site(node, f"{node.value.id}.{node.attr} -> {node.value.id}.{other}"):
                node.attr = other
        return node


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 70 else text[:67] + "..."


def _op(op: ast.AST) -> str:
    return {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
            ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.And: "and", ast.Or: "or", ast.Add: "+",
            ast.Sub: "-", ast.BitAnd: "&", ast.BitOr: "|"}[type(op)]


def _split(target: str) -> tuple[str, set[str] | None]:
    path, _, names = target.partition(":")
    return path, ({n.strip() for n in names.split(",") if n.strip()} or None)


def mutants(targets: list[str]) -> list[Mutant]:
    out = []
    for target in targets:
        path, functions = _split(target)
        mutator = _Mutator(functions)
        mutator.visit(ast.parse((ROOT / path).read_text()))
        out += [Mutant(path, i, line, what) for i, (line, what) in enumerate(mutator.sites)]
    return out


def mutated_source(mutant: Mutant, functions: set[str] | None) -> str:
    tree = ast.parse((ROOT / mutant.path).read_text())
    mutator = _Mutator(functions, mutant.index)
    tree = ast.fix_missing_locations(mutator.visit(tree))
    return ast.unparse(tree)


# --- the verdicts of the examples and the random designs (run inside the subprocess) --------------------------


def fingerprint(seeds: int) -> dict[str, str]:
    """Every verdict the matrix and the walk give on the bundled examples and ``seeds`` random designs of each
    kind, keyed ``design|src|dst|engine``."""
    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    from random_designs import random_design, random_rule_design

    from vnetbench.model import load
    from vnetbench.predict import Engine

    designs = [(p.name.split(".")[0], load(p)) for p in sorted((ROOT / "resources" / "examples").glob("*.vnet.yaml"))]
    designs += [(f"{make.__name__}({seed})", make(seed).t) for seed in range(seeds)
                for make in (random_design, random_rule_design)]
    out: dict[str, str] = {}
    for name, topology in designs:
        engine = Engine(topology)
        for src, dst, verdict in engine.matrix().rows():
            out[f"{name}|{src}|{dst}|matrix"] = verdict.value
            out[f"{name}|{src}|{dst}|walk"] = engine.predict(src, dst).verdict.value
            out[f"{name}|{src}|{dst}|walk tcp/443"] = engine.predict(src, dst, "tcp", 443).verdict.value
    return out


# --- running mutants -----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    mutant: Mutant
    changes: str = ""       # one verdict it changed ("" none), or how it failed
    killed: bool = False
    seconds: float = 0.0


class Lab:
    """A copy of ``app/vnetbench`` where one mutant at a time is written, and the subprocesses that judge it."""

    def __init__(self, seeds: int, tests: list[str], timeout: float) -> None:
        self.top = Path(tempfile.mkdtemp(prefix="vnb-mutation-"))
        self.dir = self.top / "app"       # laid out like a checkout, so the package finds resources/ beside it
        shutil.copytree(ROOT / "app" / "vnetbench", self.dir / "vnetbench")
        for shared in ("pyproject.toml", "resources"):
            (self.top / shared).symlink_to(ROOT / shared)
        self.seeds, self.tests, self.timeout = seeds, tests, timeout
        self.env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(self.dir), os.environ.get("PYTHONPATH", "")]),
                    "PYTHONDONTWRITEBYTECODE": "1"}
        self.baseline = self._fingerprint()
        if not isinstance(self.baseline, dict):
            raise SystemExit(f"the unmutated code does not run: {self.baseline}")

    def close(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)

    def _copy_of(self, path: str) -> Path:
        return self.dir / Path(path).relative_to("app")

    def _fingerprint(self) -> dict[str, str] | str:
        code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'tests' / 'bench')!r}); import vnetbench; "
                f"assert vnetbench.__file__.startswith({str(self.dir)!r}), vnetbench.__file__; "
                f"from bench_mutation import fingerprint; print(json.dumps(fingerprint({self.seeds})))")
        try:
            run = subprocess.run([sys.executable, "-c", code], env=self.env, cwd=ROOT, capture_output=True, text=True,
                                 timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return f"hangs (over {self.timeout:.0f} s)"
        if run.returncode != 0:
            return "crashes: " + (run.stderr.strip().splitlines() or ["?"])[-1][:120]
        return json.loads(run.stdout.strip().splitlines()[-1])

    def _tests_fail(self) -> bool:
        try:
            run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *self.tests],
                                 env=self.env, cwd=ROOT, capture_output=True, text=True, timeout=self.timeout * 3)
        except subprocess.TimeoutExpired:
            return True
        return run.returncode != 0

    def judge(self, mutant: Mutant, functions: set[str] | None) -> Outcome:
        start = time.monotonic()
        target = self._copy_of(mutant.path)
        original = target.read_text()
        outcome = Outcome(mutant)
        try:
            target.write_text(mutated_source(mutant, functions))
            found = self._fingerprint()
            if isinstance(found, str):
                outcome.changes = found
            else:
                diff = sorted(k for k in self.baseline.keys() | found.keys() if self.baseline.get(k) != found.get(k))
                if diff:
                    outcome.changes = (f"{len(diff)} verdict(s), e.g. {diff[0]}: {self.baseline.get(diff[0])} -> "
                                       f"{found.get(diff[0])}")
            if outcome.changes:
                outcome.killed = self._tests_fail()
        finally:
            target.write_text(original)
        outcome.seconds = time.monotonic() - start
        return outcome


def run(targets: list[str], sample: int | None, seed: int, seeds: int, tests: list[str], timeout: float,
        out=print, at: set[str] = frozenset()) -> list[Outcome]:  # noqa: ANN001 - a print-like callable
    functions = {_split(t)[0]: _split(t)[1] for t in targets}
    every = mutants(targets)
    if at:
        every = [m for m in every if f"{m.path}:{m.line}" in at]
    chosen = random.Random(seed).sample(every, min(sample, len(every))) if sample else every
    out(f"{len(every)} mutants in {len(targets)} target(s); judging {len(chosen)} (sample seed {seed}) on the examples "
        f"and {seeds} random designs of each kind")
    wall, cpu = time.perf_counter(), time.process_time()
    lab = Lab(seeds, tests, timeout)
    outcomes = []
    try:
        for n, mutant in enumerate(chosen, 1):
            outcome = lab.judge(mutant, functions[mutant.path])
            outcomes.append(outcome)
            state = "killed" if outcome.killed else ("SURVIVED" if outcome.changes else "no verdict change")
            out(f"[{n}/{len(chosen)}] {state:17} {mutant} ({outcome.seconds:.1f} s)")
    finally:
        lab.close()
    changing = [o for o in outcomes if o.changes]
    killed = [o for o in changing if o.killed]
    out(f"\nverdict-changing mutants: {len(changing)} of {len(outcomes)}; killed by the agreement tests: {len(killed)}")
    out(f"mutation score: {100 * len(killed) / len(changing):.1f}%" if changing else "mutation score: n/a")
    for o in changing:
        if not o.killed:
            out(f"  survivor {o.mutant}\n           changes {o.changes}")
    children = os.times()
    out(f"wall {time.perf_counter() - wall:.0f} s, CPU {time.process_time() - cpu + children.children_user + children.children_system:.0f} s "
        "(this process and its subprocesses)")
    return outcomes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", action="append", help="path[:func,Class.method] (repeatable); default: the decision "
                    "code of this branch")
    ap.add_argument("--tests", action="append", help="pytest node ids that must kill a verdict-changing mutant "
                    "(repeatable); default: the agreement tests")
    ap.add_argument("--sample", type=int, help="judge only this many mutants, drawn at random")
    ap.add_argument("--seed", type=int, default=0, help="the sample's random seed")
    ap.add_argument("--designs", type=int, default=12, help="random designs of each kind to compare verdicts on")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds one subprocess may take")
    ap.add_argument("--at", action="append", default=[], help="only the mutants at path:line (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = ap.parse_args(argv)
    targets = args.target or list(DEFAULT_TARGETS)
    if args.list:
        for m in mutants(targets):
            if args.at and f"{m.path}:{m.line}" not in args.at:
                continue
            print(m)
        return 0
    outcomes = run(targets, args.sample, args.seed, args.designs, args.tests or list(DEFAULT_TESTS), args.timeout,
                   at=set(args.at))
    return 1 if any(o.changes and not o.killed for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
