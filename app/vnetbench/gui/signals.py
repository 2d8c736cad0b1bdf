"""Connecting a part to the workbench's signals without tying their lifetimes together.

The workbench's undo stack still emits while it is being destroyed (``QUndoStack`` clears itself in its
destructor); a bound-method connection would then call into a half-deleted window, scene or inspector.
These connections hold the receiver weakly and skip it once Qt has deleted it.
"""

from __future__ import annotations

import weakref
from typing import Any

from PySide6.QtCore import QObject
from shiboken6 import isValid


def connect_weakly(signal: Any, receiver: QObject, method: str) -> None:
    ref = weakref.ref(receiver)

    def call(*args: Any) -> None:
        target = ref()
        if target is not None and isValid(target):
            getattr(target, method)(*args)

    signal.connect(call)
