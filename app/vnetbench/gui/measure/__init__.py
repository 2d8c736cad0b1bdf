"""The measure dock: ``run`` (one test), ``ab`` (A/B comparisons), ``history`` (stored runs), ``plot``, and
``dock`` putting them together."""

from .dock import MeasureDock

__all__ = ["MeasureDock"]
