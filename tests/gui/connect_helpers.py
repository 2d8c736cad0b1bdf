"""Helpers for the connect/import/deploy-to-vSphere GUI tests: filling the connect dialog, answering message
boxes. Their fixtures (vcsim, memory_keyring, gui_store) are in conftest.py."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox, QWidget


def fill_dialog(dialog, url: str, user: str, password: str = "", remember: bool = False) -> None:
    dialog.fields["url"].setText(url)
    dialog.fields["user"].setText(user)
    dialog.fields["password"].setText(password)
    dialog.remember.setChecked(remember)


def answer_box(parent: QWidget, name: str, button: QMessageBox.StandardButton) -> dict:
    """Answer the message box ``name`` under ``parent`` once it shows: note what it showed, press ``button``.

    A timer does it, since the box runs its own event loop (``exec``) inside the caller's wait. Any other box
    that shows meanwhile is closed and noted under ``unexpected`` (so a wrong question fails the test instead
    of waiting forever). ``seen`` fills in when the box was answered.
    """
    seen: dict = {"unexpected": []}
    timer = QTimer(parent)

    def poll() -> None:
        for box in parent.findChildren(QMessageBox):
            if not box.isVisible():
                continue
            if box.objectName() != name:
                seen["unexpected"].append(box.text())
                box.done(0)
                continue
            seen.update(text=box.text(), icon=box.icon(),
                        buttons={box.standardButton(b) for b in box.buttons()})
            timer.stop()
            box.button(button).click()
            return

    timer.timeout.connect(poll)
    timer.start(20)
    return seen
