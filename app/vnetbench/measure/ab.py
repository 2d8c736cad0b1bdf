"""A/B scenarios: the same test on two variants (two pairs, or one pair in two designs), run back to back.

One implementation for the CLI (``vnetbench measure --versus``) and the GUI dock (Run A/B): resolve every
side first (so a variant that is not deployed is reported before anything runs), then measure them in order,
stopping as soon as one is cancelled, store each finished run under its label, and compare the headlines.
Prediction is passed in as a function (measure reads the typed answers, never runs the engine).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..backends import Backend, CancelToken, Endpoint, ProgressFn
from ..model import Index, Topology
from ..predict.result import Prediction
from .context import make_run
from .result import Run, RunStatus
from .runner import SampleFn, measure
from .spec import TestSpec, Variant
from .store import RunStore, StoreError

#: ``predictor(design, src_id, dst_id)``: the prediction for the pair, or None.
Predictor = Callable[[Topology, str, str], Prediction | None]


@dataclass(frozen=True)
class Side:
    """A variant resolved in its design: endpoint ids, where the probes run, and the prediction at the time."""

    variant: Variant
    design: Topology
    src_id: str
    dst_id: str
    src: Endpoint
    dst: Endpoint
    prediction: Prediction | None


def prepare_side(backend: Backend, design: Topology, variant: Variant, predictor: Predictor) -> Side:
    """Resolve ``variant``'s pair (names or ids) in ``design``: ``LookupError`` for an unknown name,
    ``BackendError`` when an endpoint is not deployed."""
    index = Index(design)
    src_id, dst_id = index.endpoint(variant.src).id, index.endpoint(variant.dst).id
    src, dst = backend.endpoint(design, src_id), backend.endpoint(design, dst_id)
    return Side(variant, design, src_id, dst_id, src, dst, predictor(design, src_id, dst_id))


def via(prediction: Prediction | None) -> tuple[str, ...]:
    """The routers (firewall VMs, virtual routers) the forward path crosses."""
    return prediction.forward.routed_by if prediction is not None else ()


def default_labels(a: Variant, b: Variant, routed: tuple[Sequence[str], Sequence[str]] = ((), ()),
                   arrow: str = "->") -> tuple[str, str]:
    """Labels that tell the sides apart: the file names when the designs differ, else "via fw01" for a side
    routed through something the other is not, else the pair."""
    if a.design != b.design:
        return f"A {Path(a.design).name}", f"B {Path(b.design).name}"
    names = []
    for v, mine, other in ((a, routed[0], routed[1]), (b, routed[1], routed[0])):
        names.append(f"via {', '.join(mine)}" if mine and set(mine) != set(other) else f"{v.src}{arrow}{v.dst}")
    return f"A {names[0]}", f"B {names[1]}"


def run_sides(spec: TestSpec, sides: Sequence[Side], *, backend_name: str = "", store: RunStore | None = None,
              cancel: CancelToken | None = None, on_sample: SampleFn | None = None,
              progress: ProgressFn | None = None, on_side: Callable[[int, Side], None] | None = None,
              on_store_error: Callable[[Run, StoreError], None] | None = None) -> list[Run]:
    """Measure each side in order and return its runs; a cancelled side ends the scenario (later sides do not
    run). Finished runs (ok or failed, not cancelled) are stored with their variant's label; a store that
    cannot take one calls ``on_store_error`` (the run is in a fallback file, see ``RunStore.add``) and the
    scenario goes on, or raises when no such callback is given. ``progress`` covers all sides, its message
    prefixed with the side's label when there are several; ``on_side(n, side)`` is called as side ``n``
    starts."""
    cancel = cancel or CancelToken()
    runs: list[Run] = []
    for n, side in enumerate(sides):
        if cancel.cancelled:
            break
        if on_side:
            on_side(n, side)
        m = measure(spec, side.src, side.dst, on_sample=on_sample, cancel=cancel,
                    progress=_side_progress(progress, n, len(sides), side.variant.label))
        run = make_run(m, side.design, side.src_id, side.dst_id, side.prediction, backend=backend_name,
                       label=side.variant.label)
        if store is not None and m.status != RunStatus.CANCELLED:
            try:
                store.add(run)
            except StoreError as exc:
                if on_store_error is None:
                    raise
                on_store_error(run, exc)
        runs.append(run)
        if m.status == RunStatus.CANCELLED:
            break
    return runs


def _side_progress(progress: ProgressFn | None, n: int, count: int, label: str) -> ProgressFn | None:
    if progress is None or count == 1:
        return progress
    return lambda done, total, message: progress(n * total + done, count * total, f"{label}: {message}")


def ratio(a: Run, b: Run) -> float | None:
    """B's headline figure over A's (throughput, round trip p50, packet rate), None when either has none."""
    va, vb = a.headline()[0], b.headline()[0]
    return vb / va if va and vb is not None else None


def labelled(sides: Sequence[Side], labels: Sequence[str]) -> list[Side]:
    """The sides with the scenario's labels (A, B, ...) on their variants, as runs and reports show them."""
    return [replace(s, variant=replace(s.variant, label=label)) for s, label in zip(sides, labels)]
