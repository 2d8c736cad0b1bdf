"""Colours and sizes shared by every export format and by the canvas (through gui/colors.py).

Export must not import the GUI, so the verdict palette lives here as plain hex strings; the GUI's
``gui/colors.py`` imports it from here, so the canvas and the exported pictures share one palette.
"""

from __future__ import annotations

#: Verdict -> colour (SEMANTICS.md section 5): the Okabe-Ito hues the canvas uses, so an exported path looks
#: like the one on screen; readable for the common colour-vision deficiencies.
VERDICT_COLORS: dict[str, str] = {
    "in-host": "#009E73",
    "in-host-routed": "#56B4E9",
    "via-physical": "#0072B2",
    "routed-via-physical": "#E69F00",
    "blocked": "#D55E00",
    "unreachable": "#7F7F7F",
}

#: Verdict -> a text colour readable on its fill.
VERDICT_TEXT_COLORS: dict[str, str] = {
    "in-host": "#FFFFFF",
    "in-host-routed": "#000000",
    "via-physical": "#FFFFFF",
    "routed-via-physical": "#000000",
    "blocked": "#FFFFFF",
    "unreachable": "#FFFFFF",
}

#: Verdict -> a symbol, so no meaning rests on colour alone (heatmap cells, report tables).
VERDICT_SYMBOLS: dict[str, str] = {
    "in-host": "\u25cf",
    "in-host-routed": "\u25c6",
    "via-physical": "\u25b2",
    "routed-via-physical": "\u25a0",
    "blocked": "\u2716",
    "unreachable": "\u25cb",
}

UNKNOWN_COLOR = "#BBBBBB"

#: Curves of a chart, in order: Okabe-Ito's hues (yellow left out: unreadable as a line on white).
SERIES_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#7F7F7F"]


def series_colors(n: int) -> list[str]:
    """``n`` different colours for ``n`` curves: the palette, then hues a golden angle apart, so a legend never
    shows one colour for two curves."""
    import colorsys

    out = SERIES_COLORS[:n]
    k = 0
    while len(out) < n:
        r, g, b = colorsys.hsv_to_rgb((k * 0.381966) % 1.0, 0.75, 0.55 + 0.3 * (k % 2))
        colour = f"#{round(r * 255):02X}{round(g * 255):02X}{round(b * 255):02X}"
        if colour not in out:
            out.append(colour)
        k += 1
    return out

#: Box kind -> (fill, border). ``vm:firewall`` style keys override the plain kind.
KIND_COLORS: dict[str, tuple[str, str]] = {
    "host": ("#f5f7fa", "#546e7a"),
    "switch": ("#e3f2fd", "#1e88e5"),
    "switch:vds": ("#e0f2f1", "#00897b"),
    "switch:nsx-segment": ("#ede7f6", "#5e35b1"),
    "portgroup": ("#ffffff", "#64b5f6"),
    "vm": ("#fff8e1", "#f9a825"),
    "vm:firewall": ("#ffebee", "#e53935"),
    "vm:router": ("#ede7f6", "#7e57c2"),
    "vm:nsx-edge": ("#ede7f6", "#7e57c2"),
    "pnic": ("#eceff1", "#455a64"),
    "physical_switch": ("#e8f5e9", "#43a047"),
    "port": ("#ffffff", "#66bb6a"),
    "physical_router": ("#f3e5f5", "#8e24aa"),
    "router_interface": ("#ffffff", "#ab47bc"),
    "physical_host": ("#fffde7", "#8d6e63"),
    "host_nic": ("#ffffff", "#a1887f"),
    "dlr": ("#e0f7fa", "#00838f"),
    "note": ("#fff9c4", "#fbc02d"),
}

#: Line kind -> (colour, dashed).
LINE_STYLES: dict[str, tuple[str, bool]] = {
    "vnic": ("#616161", False),
    "uplink": ("#37474f", False),
    "standby": ("#90a4ae", True),
    "cable": ("#2e7d32", False),
    "patch": ("#1e88e5", True),
    "member": ("#b0bec5", True),
    "dlr": ("#00838f", False),
    "bus": ("#5e35b1", False),
}

TEXT_COLOR = "#212121"
MUTED_TEXT = "#616161"
FONT_FAMILY = "DejaVu Sans"
#: Font sizes in pixels (QPdfWriter would scale point sizes by its resolution).
TITLE_PX = 16
LABEL_PX = 12
DETAIL_PX = 10
HIGHLIGHT_WIDTH = 4.0


def box_colors(kind: str, style: str = "") -> tuple[str, str]:
    return KIND_COLORS.get(f"{kind}:{style}") or KIND_COLORS.get(kind, ("#ffffff", "#9e9e9e"))
