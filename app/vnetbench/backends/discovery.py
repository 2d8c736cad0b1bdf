"""Find backend plugins through the ``vnetbench.backends`` entry-point group.

Discovery never raises: a plugin that fails to import is returned with its error, so the GUI and
``vnetbench lab``/``deploy`` can list it as broken while the others keep working.

A third-party plugin is any installed package with one entry point in that group, naming a ``Backend``
subclass: ``notebook = "vnetbench_notebook:NotebookBackend"`` under
``[project.entry-points."vnetbench.backends"]`` in its pyproject.toml. A small complete example lives in
tests/backends/example_plugin.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, entry_points
from importlib.metadata import version as metadata_version

from ..extras import install_hint
from .contract import Backend

GROUP = "vnetbench.backends"


@dataclass(frozen=True)
class PluginInfo:
    name: str
    backend: type[Backend] | None
    error: str | None = None
    distribution: str | None = None

    @property
    def ok(self) -> bool:
        return self.backend is not None

    @property
    def version(self) -> str | None:
        """The installed version of the distribution that provides the plugin."""
        if not self.distribution:
            return None
        try:
            return metadata_version(self.distribution)
        except PackageNotFoundError:
            return None


def discover() -> list[PluginInfo]:
    found = []
    for ep in entry_points(group=GROUP):
        dist = ep.dist.name if ep.dist else None
        try:
            cls = ep.load()
            if not (isinstance(cls, type) and issubclass(cls, Backend)):
                raise TypeError(f"{ep.value} is not a vnetbench Backend class")
            found.append(PluginInfo(ep.name, cls, None, dist))
        except ModuleNotFoundError as exc:
            error = install_hint(exc.name, ep.name) or f"{type(exc).__name__}: {exc}"
            found.append(PluginInfo(ep.name, None, error, dist))
        except Exception as exc:  # noqa: BLE001 - a broken plugin is reported, never fatal
            found.append(PluginInfo(ep.name, None, f"{type(exc).__name__}: {exc}", dist))
    return sorted(found, key=lambda p: (p.name != "local", p.name))


def backend_class(name: str) -> type[Backend]:
    """The backend called ``name``, or a ``LookupError`` that lists the ones available or broken."""
    plugins = discover()
    for info in plugins:
        if info.name == name:
            if info.backend is None:
                raise LookupError(f"the backend {name!r} failed to load: {info.error}")
            return info.backend
    names = ", ".join(p.name for p in plugins) or "none"
    raise LookupError(f"no backend named {name!r} (installed: {names})")
