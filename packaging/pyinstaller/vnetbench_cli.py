"""PyInstaller entry script for the ``vnetbench`` command line (the console script in pyproject.toml)."""

import multiprocessing
import sys

from vnetbench.cli.main import main

multiprocessing.freeze_support()   # the frozen program also runs the designer's worker processes (gui/offload.py)
sys.exit(main())
