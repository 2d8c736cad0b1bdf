"""The colours, symbols and labels of verdicts, deploy states and problem severities, in one place.

The canvas, the path, matrix and what-if docks all draw verdicts: they read them here so a verdict looks
the same everywhere. The hues are the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies), and no meaning is carried by colour alone: every verdict also has a symbol and a text label.
Keys are the plain strings of ``vnetbench.predict.Verdict`` (a ``StrEnum``, so a ``Verdict`` looks them up too).
"""

from __future__ import annotations

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
