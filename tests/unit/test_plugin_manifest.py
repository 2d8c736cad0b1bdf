"""Plugins are found from their manifests: nothing is imported until a backend is used, errors keep their
exception, and a plugin built for a newer contract is refused with the fix."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint

import pytest

from vnetbench.backends import backend_class, discover, discovery
from vnetbench.backends.manifest import CONTRACT_VERSION, FILENAME, Manifest, ManifestError

SDKS = ("pyVmomi", "libvirt", "vnetbench_kvm", "vnetbench_vsphere")


def test_using_the_local_backend_imports_neither_pyvmomi_nor_libvirt():
    code = "from vnetbench.backends import backend_class; backend_class('local')"
    run = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                         check=True)
    imported = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert "vnetbench_local.backend" in imported           # the measurement sees what it is meant to see
    assert not {name for name in imported if name.split(".")[0] in SDKS}


def test_discovery_reads_manifests_and_imports_nothing():
    code = ("import sys; from vnetbench.backends import discover; found = discover(); "
            "print([p.title for p in found]); print(sorted(m for m in sys.modules if m.startswith('vnetbench_')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    titles, modules = run.stdout.splitlines()
    assert "Local lab (network namespaces)" in titles and "VMware vSphere" in titles
    assert modules == "[]"


def test_the_built_in_manifests_agree_with_their_plugins():
    from vnetbench_kvm.config import DEFAULT_MEMORY_MB, DEFAULT_URI
    from vnetbench_kvm.desired import SUPPORTED_SWITCHES as KVM_SWITCHES
    from vnetbench_local.desired import SUPPORTED_SWITCHES as LOCAL_SWITCHES
    from vnetbench_vsphere.connection import KEYRING_SERVICE

    found = {p.name: p for p in discover()}
    assert {"local", "kvm", "vsphere"} <= set(found)
    for info in found.values():
        if info.name in ("local", "kvm", "vsphere"):
            assert info.manifest is not None and info.manifest.name == info.name == info.backend.name
            assert info.manifest.contract <= CONTRACT_VERSION
    assert found["local"].manifest.capabilities.switch_kinds == LOCAL_SWITCHES
    assert found["kvm"].manifest.capabilities.switch_kinds == KVM_SWITCHES
    kvm = {f.name: f for f in found["kvm"].manifest.settings_fields}
    assert kvm["uri"].default == DEFAULT_URI and kvm["memory_mb"].default == str(DEFAULT_MEMORY_MB)
    vsphere = {f.name: f for f in found["vsphere"].manifest.settings_fields}
    assert KEYRING_SERVICE in vsphere["password"].help and vsphere["password"].kind == "secret"


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    """Installs plugin packages made in ``tmp_path``: ``make(name, manifest_text)``; entry point ``name``."""
    monkeypatch.syspath_prepend(str(tmp_path))
    real = discovery.entry_points
    extra: list[EntryPoint] = []
    monkeypatch.setattr(discovery, "entry_points", lambda group: [*real(group=group), *extra])

    def make(name: str, manifest: str | None) -> None:
        package = tmp_path / f"vnbtest_{name}"
        package.mkdir()
        (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
        if manifest is not None:
            (package / FILENAME).write_text(manifest)
        extra.append(EntryPoint(name, f"vnbtest_{name}:Backend", discovery.GROUP))

    yield make
    for name in [m for m in sys.modules if m.startswith("vnbtest_")]:
        sys.modules.pop(name)


def test_a_plugin_for_a_newer_contract_is_refused_without_importing_it(third_party):
    third_party("future", f'name = "future"\ntitle = "Future"\ncontract = {CONTRACT_VERSION + 1}\n')
    info = next(p for p in discover() if p.name == "future")
    assert not info.ok and isinstance(info.exception, ManifestError)
    assert f"needs backend contract {CONTRACT_VERSION + 1}" in info.error and "upgrade vnetbench" in info.error
    with pytest.raises(LookupError, match="upgrade vnetbench"):
        backend_class("future")
    assert "vnbtest_future" not in sys.modules


def test_discovery_keeps_the_exception_of_a_plugin_that_fails_to_import(third_party):
    third_party("raises", 'name = "raises"\ntitle = "Raises on import"\ncontract = 1\n')
    info = next(p for p in discover() if p.name == "raises")
    assert info.title == "Raises on import" and "vnbtest_raises" not in sys.modules   # listed, not imported
    assert info.backend is None and isinstance(info.exception, RuntimeError)
    assert info.error == "RuntimeError: imported"


def test_a_bad_manifest_names_the_field():
    with pytest.raises(ValueError, match="unknown capability 'teleport'"):
        Manifest.parse({"name": "x", "title": "X", "contract": 1, "capabilities": {"teleport": True}})
    with pytest.raises(ValueError, match="contract must be a whole number"):
        Manifest.parse({"name": "x", "title": "X"})


def test_a_bad_manifest_file_is_reported_with_its_path(third_party):
    third_party("nameless", 'title = "No name"\ncontract = 1\n')
    info = next(p for p in discover() if p.name == "nameless")
    assert not info.ok and "bad plugin manifest" in info.error and "'name' is missing" in info.error
    assert FILENAME in info.error
