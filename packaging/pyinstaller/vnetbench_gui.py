"""PyInstaller entry script for the ``vnetbench-gui`` launcher (the gui-script in pyproject.toml)."""

import sys

from vnetbench.cli.main import gui_main

sys.exit(gui_main())
