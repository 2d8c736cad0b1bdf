"""The designer's work that runs in a child process (``offload``): reading and laying out a large design, and
validating one. No Qt here, so a child imports only the core it needs."""

from __future__ import annotations

import pickle

from ..model import load
from ..model.validate import Problem
from ..predict.lint import check
from .canvas.layout import fill_layout, remembered


def read_and_lay_out(path: str) -> tuple[bytes, bytes]:
    """The design read from ``path`` and laid out, pickled (the window's design, and the docks' first snapshot
    of it), and the layout it used (``remembered``), pickled on its own."""
    topology = load(path)
    fill_layout(topology)
    return (pickle.dumps(topology, pickle.HIGHEST_PROTOCOL),
            pickle.dumps(remembered(topology), pickle.HIGHEST_PROTOCOL))


def check_pickled(data: bytes) -> list[Problem]:
    """The problems of the design pickled in ``data`` (``Workbench.snapshot_bytes``)."""
    return check(pickle.loads(data))
