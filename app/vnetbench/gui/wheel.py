"""The mouse wheel scrolls; it never changes a value the person is not editing.

Drop-downs and spin boxes take keyboard focus only by a click or Tab (``StrongFocus``), and a wheel turned
over one without focus scrolls what holds it (the inspector's scroll area), as if the control were not there:
one notch over a vNIC's type while scrolling a long inspector must not turn vmxnet3 into sriov.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QWidget

GUARDED = (QComboBox, QAbstractSpinBox)


class WheelGuard(QObject):
    """An application-wide event filter: every combo and spin box in the program follows the rule above."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, GUARDED):
            watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # the wheel gives it no focus
            return False
        if kind != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        control = watched if isinstance(watched, GUARDED) else watched.parentWidget()  # a spin box's line edit
        if isinstance(control, GUARDED) and not control.hasFocus():
            area = scroll_area(control)
            if area is not None:
                QApplication.sendEvent(area.viewport(), event)  # the area scrolls, whatever the pointer is over
            else:
                event.ignore()  # ignored and filtered: Qt offers the wheel to the parent widgets
            return True
        return False


def scroll_area(widget: QWidget) -> QAbstractScrollArea | None:
    """The nearest scroll area holding ``widget`` (its viewport's own children only, not the area's bars)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def guard_wheel(app: QApplication) -> None:
    """Install the guard once per application (every window calls this)."""
    if app.findChild(WheelGuard) is None:
        guard = WheelGuard(app)
        guard.setObjectName("wheelGuard")
        app.installEventFilter(guard)
