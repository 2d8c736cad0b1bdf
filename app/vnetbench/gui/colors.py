"""The colours, symbols and labels of verdicts, deploy states and problem severities, in one place.

The canvas, the path, matrix and what-if docks all draw verdicts: they read them here so a verdict looks
the same everywhere. The hues are the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies), and no meaning is carried by colour alone: every verdict also has a symbol and a text label.
Keys are the plain strings of ``vnetbench.predict.Verdict`` (a ``StrEnum``, so a ``Verdict`` looks them up too).

The canvas has a light and a dark theme (``CanvasTheme``); ``canvas_theme()`` is the one the platform asks for
(its colour scheme, or a dark palette), so the canvas follows a dark desktop.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette

# The verdict palette itself lives with the exporters (which may not import the GUI), so the canvas and
# every exported picture draw a verdict in the same colour.
from ..export.style import UNKNOWN_COLOR, VERDICT_COLORS, VERDICT_SYMBOLS, VERDICT_TEXT_COLORS  # noqa: F401 - re-exported

#: verdict -> what a person reads.
VERDICT_LABELS: dict[str, str] = {
    "in-host": "in host",
    "in-host-routed": "in host, routed",
    "via-physical": "via physical network",
    "routed-via-physical": "routed via physical network",
    "blocked": "blocked",
    "unreachable": "unreachable",
}

#: deploy state (``vnetbench.backends.DeployState`` value) -> badge colour.
DEPLOY_COLORS: dict[str, str] = {
    "deployed": "#009E73",
    "pending": "#E69F00",
    "failed": "#D55E00",
    "absent": "#7F7F7F",
}

#: deploy state -> badge symbol.
DEPLOY_SYMBOLS: dict[str, str] = {
    "deployed": "✔",
    "pending": "…",
    "failed": "✖",
    "absent": "○",
}

#: problem severity -> colour and symbol.
SEVERITY_COLORS: dict[str, str] = {"error": "#D55E00", "warning": "#E69F00", "info": "#0072B2"}
SEVERITY_SYMBOLS: dict[str, str] = {"error": "✖", "warning": "⚠", "info": "ℹ"}


def verdict_color(verdict: str | None) -> str:
    return VERDICT_COLORS.get(str(verdict), UNKNOWN_COLOR) if verdict is not None else UNKNOWN_COLOR


def verdict_text(verdict: str | None) -> str:
    """``"✖ blocked"``: symbol and label, for places that show a verdict as text."""
    if verdict is None:
        return "—"
    key = str(verdict)
    return f"{VERDICT_SYMBOLS.get(key, '?')} {VERDICT_LABELS.get(key, key)}"


@dataclass(frozen=True)
class CanvasTheme:
    """The canvas's own colours: background, grid, text, and (fill, border, accent) per item family."""

    dark: bool
    background: str
    grid_minor: str
    grid_major: str
    text: str
    subtext: str
    handle_text: str
    handle_fill: str
    #: family -> (fill, border, accent); a note's accent is its ink.
    families: dict[str, tuple[str, str, str]]
    #: link style -> colour.
    links: dict[str, str]


LIGHT = CanvasTheme(
    dark=False, background="#fbfcfe", grid_minor="#edf0f5", grid_major="#dde2ea", text="#1d2433",
    subtext="#5b6577", handle_text="#333333", handle_fill="#ffffff",
    families={"host": ("#eef3fb", "#2f5597", "#2f5597"), "switch": ("#e6f5f4", "#1b8a8f", "#1b8a8f"),
              "portgroup": ("#ffffff", "#20a39e", "#20a39e"), "vm": ("#ffffff", "#2e8b57", "#2e8b57"),
              "vm-firewall": ("#ffffff", "#c0392b", "#c0392b"), "vm-router": ("#ffffff", "#7b3fa0", "#7b3fa0"),
              "vm-nsx-edge": ("#ffffff", "#4b3fa8", "#4b3fa8"), "physical": ("#f4f5f7", "#5a6473", "#5a6473"),
              "nsx": ("#f1effb", "#4b3fa8", "#4b3fa8"), "note": ("#fff6c8", "#d4b443", "#8a6d00")},
    links={"net": "#2e8b57", "uplink": "#37474f", "cable": "#3c4655", "dlr": "#4b3fa8", "l3": "#5a6473",
           "bus": "#7e6bc4"},
)
DARK = CanvasTheme(
    dark=True, background="#1d2026", grid_minor="#252930", grid_major="#2f343d", text="#e8ebf1",
    subtext="#a7afbd", handle_text="#c9ced8", handle_fill="#1d2026",
    families={"host": ("#222a37", "#6b93d6", "#6b93d6"), "switch": ("#1d3032", "#3fb4b9", "#3fb4b9"),
              "portgroup": ("#272b31", "#3cc4bd", "#3cc4bd"), "vm": ("#272b31", "#4fc384", "#4fc384"),
              "vm-firewall": ("#272b31", "#e8695e", "#e8695e"), "vm-router": ("#272b31", "#b685de", "#b685de"),
              "vm-nsx-edge": ("#272b31", "#9488e6", "#9488e6"), "physical": ("#2a2e35", "#a3adbc", "#a3adbc"),
              "nsx": ("#26233a", "#9488e6", "#9488e6"), "note": ("#4a4327", "#c9aa3e", "#f3e6b0")},
    links={"net": "#4fc384", "uplink": "#a9b7c0", "cable": "#b3bcca", "dlr": "#9488e6", "l3": "#a3adbc",
           "bus": "#9488e6"},
)


_current: list[CanvasTheme] = []  # the theme in use, worked out once (items ask for it on every paint)


def canvas_theme() -> CanvasTheme:
    """The dark theme when the platform's colour scheme is dark, else the light one."""
    if not _current:
        refresh_theme()
    return _current[0]


def platform_is_dark() -> bool:
    """Whether the desktop asks for dark: its colour scheme says so, or its palette is dark (a dark KDE or Qt
    palette, which sets no scheme)."""
    if QGuiApplication.instance() is None:
        return False
    if QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark:
        return True
    return QGuiApplication.palette().color(QPalette.ColorRole.Window).lightness() < 128


def refresh_theme() -> bool:
    """Look at the platform's colour scheme again (it changed); True when the canvas theme changed."""
    theme = DARK if platform_is_dark() else LIGHT
    changed = not _current or _current[0] is not theme
    _current[:] = [theme]
    return changed
