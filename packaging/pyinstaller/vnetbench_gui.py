"""PyInstaller entry script for the ``vnetbench-gui`` launcher (the gui-script in pyproject.toml)."""

import multiprocessing
import sys

from vnetbench.cli.main import gui_main

multiprocessing.freeze_support()   # the frozen program also runs the designer's worker processes (gui/offload.py)
sys.exit(gui_main())
