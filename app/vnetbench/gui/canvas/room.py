"""Making room: after a drop, a resize or a paste no two boxes overlap.

What grew (a new box, the frame it went into, a frame dragged larger, pasted boxes) stays where the person put
it; the boxes beside it at the same level (in the same frame, or both on the canvas itself) are pushed right or
down, whichever is the shorter way out, with everything they hold, and a box pushed into another pushes that one
on. A pushed box makes its frame grow, so the frame's level is looked at next, up to the canvas. The moves join
the gesture's own undo command, so one Ctrl+Z takes back the drop and the room it made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from PySide6.QtCore import QPointF, QRectF

from ..commands import Group, Insert

if TYPE_CHECKING:
    from .scene import DesignScene

#: Room kept between a box and the one it pushed.
GAP = 10.0
#: Rounds of push, refit the frames, look again (a design nests three deep: host, switch, portgroup).
ROUNDS = 8
#: Pushes in one level, at most: a chain of boxes pushing each other never runs away.
PUSHES = 2000


def rect_of(scene: DesignScene, oid: str) -> QRectF:
    item = scene.nodes[oid]
    return item.mapRectToScene(item.size)


def siblings(scene: DesignScene, oid: str) -> list[str]:
    """The boxes drawn at the same level as ``oid``: in the same frame, or like it on the canvas itself."""
    parent = scene.parent_of.get(oid)
    if parent is not None:
        return scene.children_of(parent)
    return [key for key, item in scene.nodes.items() if key not in scene.parent_of and item.isVisible()]


def overlaps(scene: DesignScene) -> list[tuple[str, str]]:
    """Every pair of boxes at the same level that overlap (touching edges do not)."""
    scene.flush()
    levels: dict[str | None, list[str]] = {}
    for key, item in scene.nodes.items():
        if item.isVisible() or key in scene.parent_of:
            levels.setdefault(scene.parent_of.get(key), []).append(key)
    found = []
    for keys in levels.values():
        rects = sorted(((rect_of(scene, k), k) for k in keys), key=lambda r: r[0].left())
        for i, (a, ka) in enumerate(rects):
            for b, kb in rects[i + 1:]:
                if b.left() >= a.right():
                    break
                if a.intersected(b).width() > 0.5 and a.intersected(b).height() > 0.5:
                    found.append((ka, kb))
    return found


def ancestors(scene: DesignScene, oid: str) -> list[str]:
    out = []
    while oid in scene.parent_of:
        oid = scene.parent_of[oid]
        out.append(oid)
    return out


def pushes(scene: DesignScene, grown: Iterable[str]) -> dict[str, QPointF]:
    """How far to push each box so that nothing at the level of a ``grown`` box overlaps it (``grown`` boxes
    themselves stay)."""
    fixed = set(grown)
    moves: dict[str, QPointF] = {}
    by_level: dict[str | None, list[str]] = {}
    for oid in fixed:
        if oid in scene.nodes:
            by_level.setdefault(scene.parent_of.get(oid), []).append(oid)
    for keys in by_level.values():
        level = siblings(scene, keys[0])
        rects = {k: rect_of(scene, k) for k in level}
        queue, count = list(keys), 0
        while queue and count < PUSHES:
            a = queue.pop(0)
            room = rects[a].adjusted(-GAP, -GAP, GAP, GAP)
            for b in level:
                rb = rects[b]
                if b == a or b in fixed or not (room.intersected(rb).width() > 0 and room.intersected(rb).height() > 0):
                    continue
                right, down = room.right() - rb.left(), room.bottom() - rb.top()
                step = QPointF(right, 0) if right < down else QPointF(0, down)
                rects[b] = rb.translated(step)
                moves[b] = moves.get(b, QPointF()) + step
                queue.append(b)
                count += 1
    return moves


def make_room(scene: DesignScene, command: Group, grown: Iterable[str]) -> int:
    """Push boxes aside until none overlaps what ``grown`` holds, each move a child of ``command`` (the gesture's
    command, already on the undo stack); the number of boxes moved."""
    start = {oid for oid in grown if oid in scene.nodes}
    watch = set(start)
    moved: set[str] = set()
    for _ in range(ROUNDS):
        scene.flush()  # frames refitted to what they hold now
        watch = {a for oid in watch for a in (oid, *ancestors(scene, oid))}
        moves = pushes(scene, watch)
        if not moves:
            break
        positions: dict[str, tuple[float, float]] = {}
        for oid, step in moves.items():
            for key in (oid, *scene.descendants(oid)):
                pos = scene.nodes[key].pos() + step
                positions[key] = (pos.x(), pos.y())
        scene.editor.move_into(command, positions)
        moved |= set(moves)
        watch |= set(moves)
    scene.flush()
    return len(moved)


def command_that_made(stack, oids: Iterable[str]) -> Group | None:
    """The undo command that inserted one of ``oids`` (a drop's or paste's, not the automatic uplink after it)."""
    wanted = set(oids)
    for index in range(stack.index() - 1, max(stack.index() - 4, -1), -1):
        command = stack.command(index)
        if isinstance(command, Group) and any(isinstance(c, Insert) and getattr(c.obj, "id", None) in wanted
                                              for c in command.children):
            return command
    return None


def clear_shift(scene: DesignScene, oids: Iterable[str], step: float, reach: int = 40) -> QPointF:
    """The shortest shift (in ``step``s, right and down first) that puts the boxes ``oids`` on the canvas itself
    clear of every other box there."""
    mine = {o for o in oids if o in scene.nodes and o not in scene.parent_of}
    if not mine:
        return QPointF()
    boxes = [rect_of(scene, o).adjusted(-GAP, -GAP, GAP, GAP) for o in mine]
    others = [rect_of(scene, k) for k in siblings(scene, next(iter(mine))) if k not in mine]
    offsets = sorted(((dx, dy) for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1)),
                     key=lambda d: (abs(d[0]) + abs(d[1]), -d[0] - d[1], d))
    for dx, dy in offsets:
        shift = QPointF(dx * step, dy * step)
        if not any(box.translated(shift).intersects(other) for box in boxes for other in others):
            return shift
    return QPointF()


def place_pasted(scene: DesignScene, command: Group, oids: list[str], step: float) -> None:
    """Pasted boxes go to the nearest clear spot (never onto what they were copied from), then make room
    for those pasted into a frame; all of it joins the paste's undo step."""
    scene.flush()
    shift = clear_shift(scene, oids, step)
    if not shift.isNull():
        positions = {}
        for oid in [o for o in oids if o in scene.nodes and o not in scene.parent_of]:
            for key in (oid, *scene.descendants(oid)):
                pos = scene.nodes[key].pos() + shift
                positions[key] = (pos.x(), pos.y())
        scene.editor.move_into(command, positions)
    make_room(scene, command, oids)
