"""A plugin's manifest: what it is and can do, read from a small file without importing the plugin.

Every ``vnetbench lab``, ``deploy`` and ``measure`` needs one backend, not all of them; importing every plugin
to learn its name would load every SDK (pyVmomi, libvirt) and run every third-party import side effect. So each
plugin package ships ``vnetbench-plugin.toml`` next to its ``__init__.py``::

    name = "kvm"
    title = "KVM (libvirt + QEMU)"
    contract = 1

    [capabilities]
    switch_kinds = ["linux-bridge", "ovs"]
    import_inventory = true

    [[settings]]
    name = "uri"
    label = "libvirt URI"
    kind = "url"

    [probes]          # what ``vnetbench verify`` can observe through it
    counters = false
    limits = "the KVM backend does not read tap, bridge or OVS port counters yet"

and its ``Backend`` class takes ``name``, ``title``, ``capabilities``, ``settings_fields`` and
``probe_capabilities`` from it
(``Manifest.of``), so the file and the class cannot disagree.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import SwitchKind
from .contract import Capabilities, ProbeCapabilities, SettingField, SettingKind

#: The version of the backend contract this vnetbench implements; a plugin built for a newer one is refused.
CONTRACT_VERSION = 1
#: The manifest's file name inside a plugin package.
FILENAME = "vnetbench-plugin.toml"


class ManifestError(ValueError):
    """A manifest that cannot be read or asks for a contract this vnetbench does not know."""


@dataclass(frozen=True)
class Manifest:
    """A plugin's identity and what it declares, as its manifest file says."""

    name: str
    title: str
    contract: int
    capabilities: Capabilities
    settings_fields: tuple[SettingField, ...] = ()
    probes: ProbeCapabilities = ProbeCapabilities()

    @classmethod
    def read(cls, path: Path) -> Manifest:
        """The manifest in ``path``; ``ManifestError`` names the file and the field that is wrong."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ManifestError(f"{path}: {exc}") from exc
        try:
            return cls.parse(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise ManifestError(f"{path}: {_why(exc)}") from exc

    @classmethod
    def parse(cls, data: dict[str, Any]) -> Manifest:
        """The manifest from its parsed TOML table."""
        contract = data.get("contract")
        if not isinstance(contract, int):
            raise ValueError("contract must be a whole number, like contract = 1")
        if contract > CONTRACT_VERSION:
            raise ValueError(f"the plugin needs backend contract {contract}, and this vnetbench knows "
                             f"contract {CONTRACT_VERSION} at most: upgrade vnetbench or install an older plugin")
        table = dict(data.get("capabilities") or {})
        table["switch_kinds"] = frozenset(SwitchKind(kind) for kind in table.get("switch_kinds", ()))
        known = {f.name for f in dataclasses.fields(Capabilities)}
        unknown = sorted(set(table) - known)
        if unknown:
            raise ValueError(f"unknown capability {unknown[0]!r} (known: {', '.join(sorted(known))})")
        settings = tuple(SettingField(**{**field, "kind": SettingKind(field.get("kind", "text"))})
                         for field in data.get("settings", ()))
        probes = dict(data.get("probes") or {})
        known = {f.name for f in dataclasses.fields(ProbeCapabilities)}
        unknown = sorted(set(probes) - known)
        if unknown:
            raise ValueError(f"unknown probe capability {unknown[0]!r} (known: {', '.join(sorted(known))})")
        return cls(str(data["name"]), str(data["title"]), contract, Capabilities(**table), settings,
                   ProbeCapabilities(**probes))

    @classmethod
    def of(cls, package_file: str) -> Manifest:
        """The manifest beside a plugin package's module (``Manifest.of(__file__)``), for its Backend class."""
        return cls.read(Path(package_file).with_name(FILENAME))


def manifest_path(module: str) -> Path | None:
    """Where the manifest of the plugin package ``module`` lies, found without importing it; None if it has none.

    Only the top-level package is looked up (``find_spec`` of a submodule would import its parents); the rest
    of the dotted name is a folder path below it."""
    top, _, rest = module.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        path = Path(location, *rest.split(".") if rest else ()) / FILENAME
        if path.is_file():
            return path
    return None


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"the field {exc.args[0]!r} is missing"
    return str(exc)
