"""Graphviz ``dot`` orders the top level: which host goes where in its row, which switch under it.

The top level of a design is a layered graph: rows of hosts, the switches they are cabled to below them, the
physical tiers below those. ``dot`` (network simplex ranking, crossing minimisation) puts each row's boxes in an
order with few crossing cables. Everything else (the insides of hosts and switches, the wrapping and spacing of
rows, the routing of each line) is this package's own, so that its guarantees (no overlap, no line through a
box) hold whatever ``dot`` returns.

All rows are sent to one ``dot`` process as separate graphs. If ``dot`` is missing or fails, the boxes keep the
design's order (``engine()`` says which happened).
"""

from __future__ import annotations

import functools
import logging
import shutil
import subprocess
from dataclasses import dataclass

log = logging.getLogger(__name__)

TIMEOUT = 60.0
NODESEP = 48.0  # px between boxes of a row (dot works in inches: 72 px each)


@dataclass
class Graph:
    """Rows of ``(key, width, height)`` boxes, top to bottom, and weighted links between keys."""

    rows: list[list[tuple[str, float, float]]]
    links: list[tuple[str, str, int]]


@functools.cache
def dot_version() -> str | None:
    """``graphviz dot X.Y.Z`` when ``dot`` can run here, else None."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "-V"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    words = (out.stderr or out.stdout).split()
    version = next((w for w in words if w[:1].isdigit()), "")
    return f"graphviz dot {version}".strip()


def _dot_source(n: int, graph: Graph) -> tuple[str, dict[str, str]]:
    names: dict[str, str] = {}
    lines = [f"digraph g{n} {{",
             f"  graph [nodesep={NODESEP / 72:.3f}, ranksep=0.6, splines=false, newrank=true, mclimit=4];",
             '  node [shape=box, fixedsize=true, label=""];', "  edge [arrowhead=none];"]
    for r, row in enumerate(graph.rows):
        members = []
        for key, w, h in row:
            name = f"n{len(names)}"
            names[key] = name
            lines.append(f"  {name} [width={max(w, 1) / 72:.3f}, height={max(h, 1) / 72:.3f}];")
            members.append(name)
        lines.append(f"  {{ rank=same; {'; '.join(members)} }}")
    rank = {key: r for r, row in enumerate(graph.rows) for key, _, _ in row}
    firsts = [names[row[0][0]] for row in graph.rows if row]
    for a, b in zip(firsts, firsts[1:]):
        lines.append(f"  {a} -> {b} [style=invis, weight=0];")
    for a, b, weight in graph.links:
        if a not in names or b not in names or a == b:
            continue
        if rank[a] > rank[b]:
            a, b = b, a
        lines.append(f"  {names[a]} -> {names[b]} [weight={max(1, min(weight, 100))}];")
    lines.append("}")
    return "\n".join(lines), names


def place_rows(graphs: list[Graph]) -> list[dict[str, float]] | None:
    """The centre x (px) of every box of every graph, from one ``dot`` run; None when dot cannot run."""
    if not graphs or dot_version() is None:
        return None
    sources, names = [], []
    for n, graph in enumerate(graphs):
        text, mapping = _dot_source(n, graph)
        sources.append(text)
        names.append(mapping)
    try:
        done = subprocess.run([shutil.which("dot") or "dot", "-Tplain"], input="\n".join(sources), text=True,
                              capture_output=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("graphviz dot failed (%s); keeping the design's order", exc)
        return None
    if done.returncode != 0:
        log.warning("graphviz dot failed: %s; keeping the design's order", done.stderr.strip()[:200])
        return None
    results: list[dict[str, float]] = []
    current: dict[str, float] = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "node":
            current[parts[1].strip('"')] = float(parts[2]) * 72
        elif parts[0] == "stop":
            results.append(current)
            current = {}
    if len(results) != len(graphs):
        log.warning("graphviz dot returned %d layouts for %d graphs; keeping the design's order",
                    len(results), len(graphs))
        return None
    return [{key: found[name] for key, name in mapping.items() if name in found}
            for mapping, found in zip(names, results)]
