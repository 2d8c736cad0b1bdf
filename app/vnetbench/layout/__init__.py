"""The layout room: where every object of a design is drawn, for the canvas and for every export.

Qt-free; imports only the model. ``arrange(topology)`` returns a ``Diagram`` (nested boxes with their text,
orthogonal lines with their points); ``arrange(topology, select=ids)`` lays out only those objects with what they
hold and the frames around them. The sizes come from the text each box shows (``content``), so nothing is cut.
"""

from __future__ import annotations

from .diagram import FRAME_KINDS, Box, Diagram, Edge
from .place import arrange as _arrange
from .select import subset

__all__ = ["FRAME_KINDS", "Box", "Diagram", "Edge", "arrange"]


def arrange(topology, select=None) -> Diagram:
    """The design (or the selected objects, with their contents and the frames around them) laid out."""
    return _arrange(topology if select is None else subset(topology, select))
