"""PyInstaller entry script for the ``vnetbench`` command line (the console script in pyproject.toml)."""

import sys

from vnetbench.cli.main import main

sys.exit(main())
