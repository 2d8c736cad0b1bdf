"""PyInstaller entry script for the ``vnetbench-gui`` launcher (the gui-script in pyproject.toml)."""

import sys

from vnetbench.gui.app import main

sys.exit(main())
