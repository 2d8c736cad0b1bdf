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


def ping_every_pair(backend: Any, design: Topology, ids: list[str]) -> dict[tuple[str, str], tuple[Any, bool]]:
    """Ping every ordered pair of ``ids`` (guests or emulated physical hosts) at once, each to the address the
    prediction names: (source, destination) -> (the predicted verdict, whether the ping answered)."""
    from vnetbench.predict import Engine

    lab, engine = lab_agreement(), Engine(design)
    endpoints = {i: backend.endpoint(design, i) for i in ids}
    jobs = []
    for src in ids:
        for dst in ids:
            if src != dst:
                p = engine.predict(src, dst, "icmp")
                dst_ep = endpoints[dst]
                jobs.append({"src_ep": endpoints[src], "src": src, "dst": dst, "verdict": p.verdict,
                             "addresses": [lab._target(p, dst_ep)] if p.verdict in lab.REACHABLE else
                             [dst_ep.address(n) for n in dst_ep.addresses]})
    return {(j["src"], j["dst"]): (j["verdict"], ok) for j, ok in lab._ping_all(jobs)}


def disagreements(seen: dict[tuple[str, str], tuple[Any, bool]]) -> dict[tuple[str, str], Any]:
    """The pairs whose ping answered where the prediction said it would not, or the other way round."""
    reachable = lab_agreement().REACHABLE
    return {pair: v for pair, (v, ok) in seen.items() if ok != (v in reachable)}
