"""Checks of the canvas layout: positions for objects that exist, inside the canvas."""

from __future__ import annotations

from ..objects import Note, Place
from .values import ValueChecks

#: The canvas: positions within +-MAX_COORDINATE and sizes up to MAX_SIZE, far beyond any real drawing,
#: and small enough that every export (pixels are whole numbers) can hold the sums.
MAX_COORDINATE, MAX_SIZE = 1_000_000.0, 100_000.0


class LayoutChecks(ValueChecks):
    """The layout's places and notes."""

    def check_layout(self) -> None:
        """Positions kept for objects that no longer exist, and boxes off the canvas."""
        self.check_layout_bounds()
        for obj_id in self.t.layout.places:
            # "<object>@<host>": a vDS proxy, its portgroups or a DLR instance drawn inside a member host
            if obj_id not in self.index and not all(part in self.index for part in obj_id.split("@", 1)):
                self.warn(f"layout.places.{obj_id}", None, f"the canvas keeps a position for {obj_id!r}, which "
                          "does not exist", "remove that entry (saving from the designer drops it)")

    def check_layout_bounds(self) -> None:
        """Places and notes outside the canvas, which no export can draw."""
        boxes: list[tuple[str, str | None, Place | Note]] = [(f"layout.places.{k}", k, p)
                                                     for k, p in self.t.layout.places.items()]
        boxes += [(f"layout.notes[{i}]", n.id, n) for i, n in enumerate(self.t.layout.notes)]
        for path, obj_id, box in boxes:
            for name, value, low, high in (("x", box.x, -MAX_COORDINATE, MAX_COORDINATE),
                                           ("y", box.y, -MAX_COORDINATE, MAX_COORDINATE),
                                           ("w", box.w, 0.0, MAX_SIZE), ("h", box.h, 0.0, MAX_SIZE)):
                if value is not None and not low <= value <= high:
                    self.unfit(f"{path}.{name}", obj_id, f"the canvas places {obj_id!r} at {name} = {value:g}, "
                               f"outside the canvas ({low:g} to {high:g})", "move it back, or remove the "
                               "entry (the designer then lays it out)")
                    break
