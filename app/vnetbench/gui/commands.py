"""Undo commands: every edit a person makes is one ``QUndoCommand`` built from the document's primitives.

Only three primitive commands touch the model (set a field, insert into a list, remove from a list); a
gesture that changes several things is a ``Group`` of them, so deleting a switch with its portgroups, links
and the vNICs that pointed at it is one step on the undo stack and one undo restores all of it.
Positions are fields of ``Place`` objects, so a drag is one ``Group`` pushed on mouse release; a run of
arrow-key nudges of the same objects is one ``Merging`` group, merged by the stack as each key is pressed.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand

from ..model import Document


class SetField(QUndoCommand):
    """``obj.field = value``."""

    def __init__(self, document: Document, obj: Any, field: str, value: Any, text: str = "") -> None:
        super().__init__(text or f"Set {field}")
        self.document, self.obj, self.field, self.value = document, obj, field, value
        self.old: Any = getattr(obj, field)

    def redo(self) -> None:
        self.old = self.document.set(self.obj, self.field, self.value)

    def undo(self) -> None:
        self.document.set(self.obj, self.field, self.old)


class Insert(QUndoCommand):
    """Insert ``obj`` into the list ``owner.field``."""

    def __init__(self, document: Document, owner: Any, field: str, obj: Any, position: int | None = None,
                 text: str = "") -> None:
        super().__init__(text or f"Add {type(obj).__name__}")
        self.document, self.owner, self.field, self.obj, self.position = document, owner, field, obj, position

    def redo(self) -> None:
        self.position = self.document.insert(self.owner, self.field, self.obj, self.position)

    def undo(self) -> None:
        self.document.remove(self.owner, self.field, self.obj)


class Remove(QUndoCommand):
    """Remove ``obj`` from the list ``owner.field``; undo puts it back where it was."""

    def __init__(self, document: Document, owner: Any, field: str, obj: Any, text: str = "") -> None:
        super().__init__(text or f"Remove {type(obj).__name__}")
        self.document, self.owner, self.field, self.obj = document, owner, field, obj
        self.position: int | None = None

    def redo(self) -> None:
        self.position = self.document.remove(self.owner, self.field, self.obj)

    def undo(self) -> None:
        self.document.insert(self.owner, self.field, self.obj, self.position)


class Group(QUndoCommand):
    """One gesture made of several primitive commands, run in order and undone in reverse.

    A gesture is built step by step, each step seeing the state the previous one made: ``apply`` adds a
    child and runs it at once, so the first ``redo`` (when the stack pushes the group) has nothing left to
    do. Undo then redo replays them all.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.children: list[QUndoCommand] = []  # Python-side references keep the wrappers alive
        self._applied = False

    def apply(self, command: QUndoCommand) -> QUndoCommand:
        """Add a child and run it now."""
        self.children.append(command)
        command.redo()
        self._applied = True
        return command

    def absorb(self, other: Group) -> None:
        """Take over the children of ``other``, which already ran: this group, already on the undo stack, now
        undoes them too (the room a drop made joins the drop's step)."""
        self.children.extend(other.children)
        other.children = []

    def __len__(self) -> int:
        return len(self.children)

    def redo(self) -> None:
        if self._applied:  # pushed right after being built: the children already ran
            self._applied = False
            return
        for command in self.children:
            command.redo()

    def undo(self) -> None:
        for command in reversed(self.children):
            command.undo()


class AutoLayout(SetField):
    """Arrange > Auto Layout: every place replaced by the automatic layout's, as one undo step."""

    def __init__(self, document: Document, layout: Any, places: dict) -> None:
        super().__init__(document, layout, "places", places, "Auto Layout")


class Merging(Group):
    """A group the undo stack merges with the next one of the same ``key`` (``QUndoCommand.mergeWith``).

    Pressing an arrow key five times is one step back, not five: each later press's field values replace the
    earlier ones, and undo restores what the fields held before the first press.
    """

    ID = 1

    def __init__(self, text: str, key: object) -> None:
        super().__init__(text)
        self.key = key

    def id(self) -> int:
        return self.ID

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, Merging) or other.key != self.key:
            return False
        for command in other.children:
            mine = next((c for c in self.children if isinstance(c, SetField) and isinstance(command, SetField)
                         and c.obj is command.obj and c.field == command.field), None)
            if mine is not None:
                mine.value = command.value
            else:
                self.children.append(command)
        return True
