"""The measure dock (live plot, history, overlays) over ``vnetbench.measure``."""

from .dock import MeasureDock

__all__ = ["MeasureDock"]
