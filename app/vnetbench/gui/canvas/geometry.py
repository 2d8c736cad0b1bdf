"""Sizes and spacing of what the canvas draws by hand: frames, physical boxes and handles (a VM, portgroup or DLR
is as big as the layout room makes its words: ``vnetbench.layout.content``)."""

from __future__ import annotations

GRID = 20.0
PHYSICAL_HOST_SIZE = (140.0, 58.0)
ROUTER_MIN_SIZE = (160.0, 58.0)
NOTE_SIZE = (180.0, 80.0)
HANDLE = 12.0
HANDLE_STEP = 30.0

HOST_HEADER = 34.0
SWITCH_HEADER = 28.0
PAD = 14.0  # around children placed by hand (the automatic layout's frames fit exactly: vnetbench.layout)
HOST_MIN = (320.0, 180.0)
SWITCH_MIN = (200.0, 90.0)


def physical_switch_size(ports: int) -> tuple[float, float]:
    return max(200.0, 40.0 + ports * HANDLE_STEP), 62.0


def snap(value: float, step: float = GRID) -> float:
    return round(value / step) * step
