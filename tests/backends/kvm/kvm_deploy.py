"""What the KVM end-to-end tests share: a design deployed with TCG guests for one test module, and the lab
agreement test's helpers (ping every pair, against the prediction) loaded from tests/e2e."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from vnetbench.model import Topology

ROOT = Path(__file__).resolve().parents[3]


def deployed_design(kvm_host: Any, design: Topology) -> Iterator[tuple[Any, Topology, list]]:
    """Deploy ``design`` on the test's KVM host (TCG guests); yield (backend, design, apply results), then tear
    it down. A module-scoped fixture yields from it."""
    from vnetbench_kvm import KvmBackend

    backend = KvmBackend(kvm_host.settings(accel="qemu"))
    backend.connect()
    results = backend.apply(backend.plan(design))
    try:
        yield backend, design, results
    finally:
        backend.teardown(design.id)
        backend.close()


def lab_agreement() -> ModuleType:
    """tests/e2e/test_lab_agreement.py as a module (its ping-every-pair helpers)."""
    spec = importlib.util.spec_from_file_location("lab_agreement", ROOT / "tests" / "e2e" / "test_lab_agreement.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
