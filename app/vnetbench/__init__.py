"""vnetbench: a workbench for virtual networks (design, predict, deploy, measure, export).

For notebooks and scripts: ``vnetbench.load(path)``, ``vnetbench.predict(design, src, dst)`` and
``vnetbench.matrix(design)`` (``vnetbench.api``, imported on first use so ``import vnetbench`` stays cheap).
"""

from pathlib import Path

__version__ = "0.1.0"
__all__ = ["load", "matrix", "predict", "resources_dir", "__version__"]
_API = ("load", "predict", "matrix")


def __getattr__(name: str) -> object:
    if name == "predict":   # the subpackage, which is callable as the API's predict (see predict/__init__.py)
        from . import predict

        return predict
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'vnetbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API])


def resources_dir() -> Path:
    """The ``resources/`` folder: beside the package in a checkout or editable install, else in the prefix."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[2] / "resources", Path(__import__("sys").prefix) / "share" / "vnetbench"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("vnetbench resources not found; reinstall vnetbench")
