"""What the main window asks and tells the person: save changes? restore unsaved work? which file? an error, and
Help > About. Tests replace the ``ask_*`` and ``tell_error`` methods, so nothing modal stops them.

A mixin of ``MainWindow`` (``mainwindow``).
"""

from __future__ import annotations

import html
import platform
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QMessageBox

from .. import __version__, dirs
from ..backends import discover
from .dialogs import open_path, save_path
from .files import Autosaved
from .window_files import OPEN_FILTER, SAVE_FILTER
from .window_part import WindowPart


def plugin_versions() -> list[str]:
    """One line per backend plugin: its name, its distribution and version, or why it failed to load."""
    lines = []
    for info in discover():
        dist = " ".join(filter(None, (info.distribution, info.version))) or "built in"
        lines.append(f"{info.name} ({dist})" + ("" if info.ok else f": failed to load, {info.error}"))
    return lines


class WindowQuestions(WindowPart):
    """The questions, errors and About box of ``MainWindow``."""

    def ask_unsaved(self) -> QMessageBox.StandardButton:
        B = QMessageBox.StandardButton
        return QMessageBox.question(self, "Unsaved changes",
                                    f"Save the changes to {Path(self.path).name if self.path else 'this design'}?",
                                    B.Save | B.Discard | B.Cancel, B.Save)

    def ask_restore(self, saved: Autosaved) -> bool:
        B = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self, "Restore unsaved work?",
            f"vnetbench did not close normally last time. Restore {saved.describe()}?", B.Yes | B.No, B.Yes)
        return answer == B.Yes

    def ask_save_path(self) -> str | None:
        """Save As: starts in the design's folder, or the last folder used."""
        name = self.path or f"{self.workbench.topology.name or 'design'}.vnet.yaml".replace("/", "-")
        return save_path(self, "Save design", name, SAVE_FILTER)

    def ask_open_path(self) -> str | None:
        return open_path(self, "Open design", OPEN_FILTER)

    def tell_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 15000)
        QMessageBox.warning(self, title, message)

    def about_text(self) -> str:
        plugins = "".join(f"<li>{line}</li>" for line in plugin_versions()) or "<li>none</li>"
        return (f"<h3>vnetbench {__version__}</h3>"
                "<p>A desktop workbench for virtual networks: design, predict, deploy, measure, export.</p>"
                f"<p>Qt {qVersion()} · PySide6 {pyside_version} · Python {platform.python_version()} "
                f"({platform.python_implementation()}) on {platform.system()} {platform.release()}</p>"
                f"<p>Backend plugins:</p><ul>{plugins}</ul>"
                f"<p>Log: {html.escape(str(dirs.log_file()))}<br>"
                f"Crash log: {html.escape(str(dirs.crash_file()))}</p>")

    def show_about(self) -> QMessageBox:
        """Help > About: versions of vnetbench, Qt, Python and every backend plugin (what a bug report needs)."""
        box = QMessageBox(self)
        box.setWindowTitle("About vnetbench")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(self.about_text())
        box.setIconPixmap(self.windowIcon().pixmap(64, 64))
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()
        self.about_box = box
        return box
