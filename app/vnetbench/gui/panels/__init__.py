"""The designer's side panels: each a ``QDockWidget`` built from a ``Workbench`` alone.

One module per dock; the main window adds them, and they talk to the canvas and to each other only through
the workbench (selection, highlighted path, requested pair, deploy states).
"""

from .deploy import DeployDock
from .matrix import MatrixDock
from .path import PathDock
from .problems import ProblemsDock
from .whatif import WhatIfDock

__all__ = ["DeployDock", "MatrixDock", "PathDock", "ProblemsDock", "WhatIfDock"]
