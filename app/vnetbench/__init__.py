"""vnetbench: a workbench for virtual networks (design, predict, deploy, measure, export).

For notebooks and scripts: ``vnetbench.load(path)``, ``vnetbench.predict(design, src, dst)`` and
``vnetbench.matrix(design)`` (``vnetbench.api``, imported on first use so ``import vnetbench`` stays cheap).
"""

from importlib import resources
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

EXAMPLE_SUFFIX = ".vnet.yaml"


def resources_dir() -> Path:
    """The ``resources/`` folder: the checkout's own in a source tree or editable install, else the copy that
    the build put into the package (``vnetbench/resources`` in a wheel or a PyInstaller bundle)."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "resources").is_dir():
        return checkout / "resources"
    packaged = resources.files(__name__) / "resources"
    if isinstance(packaged, Path) and packaged.is_dir():
        return packaged
    raise FileNotFoundError("vnetbench resources not found; reinstall vnetbench")


def example_names() -> list[str]:
    """The bundled example designs, by the name ``vnetbench demo NAME`` accepts (``esx-four-cases``)."""
    return sorted(p.name.removesuffix(EXAMPLE_SUFFIX) for p in (resources_dir() / "examples").glob(f"*{EXAMPLE_SUFFIX}"))


def example_path(name: str) -> Path | None:
    """The bundled example called ``name`` (with or without ``.vnet.yaml``), or None when there is none."""
    if "/" in name or name in ("", ".", ".."):
        return None
    path = resources_dir() / "examples" / (name if name.endswith(EXAMPLE_SUFFIX) else name + EXAMPLE_SUFFIX)
    return path if path.is_file() else None
