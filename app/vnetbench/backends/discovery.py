"""Find backend plugins through the ``vnetbench.backends`` entry-point group, without importing them.

Discovery reads each plugin's manifest (``manifest.py``) and imports nothing: ``backend_class("local")``
imports the local plugin alone, not pyVmomi or libvirt. A plugin is imported the first time its class is
asked for (``PluginInfo.backend``). Discovery never raises: a plugin whose manifest is bad, that needs a newer
contract, or that fails to import keeps its exception (``PluginInfo.exception``), so the GUI and
``vnetbench backends`` can list it as broken while the others keep working.

A third-party plugin is any installed package with one entry point in that group, naming a ``Backend``
subclass: ``notebook = "vnetbench_notebook:NotebookBackend"`` under
``[project.entry-points."vnetbench.backends"]`` in its pyproject.toml, and a ``vnetbench-plugin.toml`` manifest
in its package. A plugin without a manifest still works; it is imported to be listed. A small complete example
lives in tests/backends/example_plugin.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points
from importlib.metadata import version as metadata_version

from ..extras import install_hint
from .contract import Backend
from .manifest import Manifest, ManifestError, manifest_path

GROUP = "vnetbench.backends"


class PluginInfo:
    """One plugin found: its manifest (read without importing it) and, on first use, its Backend class or the
    exception that kept it from loading."""

    def __init__(self, name: str, entry_point: EntryPoint | None = None, manifest: Manifest | None = None,
                 exception: BaseException | None = None, distribution: str | None = None,
                 backend: type[Backend] | None = None) -> None:
        self.name = name
        self.entry_point = entry_point
        self.manifest = manifest
        self.exception = exception
        self.distribution = distribution
        self._backend = backend

    def __repr__(self) -> str:
        state = "loaded" if self._backend else "failed" if self.exception else "not loaded"
        return f"PluginInfo({self.name!r}, {state})"

    @property
    def backend(self) -> type[Backend] | None:
        """The plugin's Backend class, imported on first use; None if it cannot be (see ``exception``)."""
        if self._backend is None and self.exception is None and self.entry_point is not None:
            try:
                self._backend = _load(self.entry_point, self.manifest)
            except Exception as exc:  # noqa: BLE001 - a broken plugin is reported, never fatal
                self.exception = exc
        return self._backend

    @property
    def ok(self) -> bool:
        """The plugin loads and can be used (imports it on first call)."""
        return self.backend is not None

    @property
    def title(self) -> str:
        """The plugin's display name, from its manifest when it has one (no import)."""
        if self.manifest is not None:
            return self.manifest.title
        return self.backend.title if self.backend is not None else self.name

    @property
    def error(self) -> str | None:
        """Why the plugin cannot be used, in one line with the fix where one is known; None if it loads."""
        if self.backend is not None or self.exception is None:
            return None
        exc = self.exception
        if isinstance(exc, ModuleNotFoundError):
            return install_hint(exc.name, self.name) or f"{type(exc).__name__}: {exc}"
        if isinstance(exc, ManifestError):
            return f"bad plugin manifest {exc}"
        return f"{type(exc).__name__}: {exc}"

    @property
    def version(self) -> str | None:
        """The installed version of the distribution that provides the plugin."""
        if not self.distribution:
            return None
        try:
            return metadata_version(self.distribution)
        except PackageNotFoundError:
            return None


def _load(ep: EntryPoint, manifest: Manifest | None) -> type[Backend]:
    cls = ep.load()
    if not (isinstance(cls, type) and issubclass(cls, Backend)):
        raise TypeError(f"{ep.value} is not a vnetbench Backend class")
    if manifest is not None and cls.name != manifest.name:
        raise TypeError(f"{ep.value} is named {cls.name!r}, and its manifest says {manifest.name!r}")
    return cls


def _found(ep: EntryPoint) -> PluginInfo:
    dist = ep.dist.name if ep.dist else None
    path = manifest_path(ep.module)
    try:
        manifest = Manifest.read(path) if path is not None else None
    except ManifestError as exc:
        return PluginInfo(ep.name, ep, None, exc, dist)
    return PluginInfo(ep.name, ep, manifest, None, dist)


def discover() -> list[PluginInfo]:
    """Every plugin installed, the local lab first; none of them imported yet."""
    found = [_found(ep) for ep in entry_points(group=GROUP)]
    return sorted(found, key=lambda p: (p.name != "local", p.name))


def backend_class(name: str) -> type[Backend]:
    """The backend called ``name`` (only that plugin is imported), or a ``LookupError`` that lists the ones
    available."""
    plugins = discover()
    for info in plugins:
        if info.name == name:
            if info.backend is None:
                raise LookupError(f"the backend {name!r} failed to load: {info.error}")
            return info.backend
    names = ", ".join(p.name for p in plugins) or "none"
    raise LookupError(f"no backend named {name!r} (installed: {names})")
