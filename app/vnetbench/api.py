"""The Python API for notebooks and scripts: ``vnetbench.load``, ``vnetbench.predict``, ``vnetbench.matrix``.

Thin functions over the same core the CLI and the designer use, returning plain records (lists of flat
dicts) that ``pandas.DataFrame(records)`` takes as they are. ``import vnetbench`` does not import this module:
the package's ``__getattr__`` does on first use, so the command line starts as fast as before.
"""

from __future__ import annotations

import os
from typing import Any

from .model import Topology
from .model import load as _load_file
from .predict.engine import Engine
from .predict.result import Prediction

Design = Topology | str | os.PathLike


def load(path: str | os.PathLike) -> Topology:
    """The design in ``path`` (``.vnet.yaml`` or ``.vnet.json``); a bad file raises ``TopologyFileError``,
    whose message names the file, the place in it and the fix."""
    return _load_file(path)


def predict(design: Design, src: str, dst: str, proto: str | None = None, port: int | None = None) -> Prediction:
    """How traffic from ``src`` to ``dst`` (VM or physical host, by name or id) travels. ``proto``: tcp, udp,
    icmp or None (any conversation); ``port``: the destination port. ``Prediction.to_records()`` gives its
    hops as rows; in a notebook it shows itself as a table."""
    return _engine(design).predict(src, dst, proto, port)


def matrix(design: Design) -> list[dict[str, Any]]:
    """The verdict for every ordered pair of endpoints: one row per pair, with ids and names."""
    engine = _engine(design)
    index = engine.network.index
    names = {e: index.get(e).name for e in engine.matrix().endpoints}
    return [{"src": src, "dst": dst, "src_name": names[src], "dst_name": names[dst], "verdict": str(verdict)}
            for src, dst, verdict in engine.matrix().rows() if src != dst]


def _engine(design: Design) -> Engine:
    return Engine(design if isinstance(design, Topology) else load(design))
