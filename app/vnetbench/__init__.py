"""vnetbench: a workbench for virtual networks (design, predict, deploy, measure, export)."""

from pathlib import Path

__version__ = "0.1.0"


def resources_dir() -> Path:
    """The ``resources/`` folder: beside the package in a checkout or editable install, else in the prefix."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[2] / "resources", Path(__import__("sys").prefix) / "share" / "vnetbench"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("vnetbench resources not found; reinstall vnetbench")
