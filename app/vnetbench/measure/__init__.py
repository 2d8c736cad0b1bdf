"""Measurements between deployed endpoints: specs, probe drivers, the runner, the run store, comparisons.

No Qt here; the GUI dock and the CLI drive the same ``measure()`` and ``RunStore``.
"""

from .ab import Side, default_labels, labelled, prepare_side, ratio, run_sides, via
from .compare import Comparison, Flag, compare, save_calibration
from .context import design_digest, make_run, snapshot
from .result import Measurement, Run, RunStatus, Sample
from .runner import ProbeFailure, Runner, measure
from .spec import SWEEP_SIZES, Scenario, SpecError, TestKind, TestSpec, Variant
from .store import RunStore, StoreError, data_dir

__all__ = ["SWEEP_SIZES", "Comparison", "Flag", "Measurement", "ProbeFailure", "Run", "RunStatus", "RunStore",
           "Runner", "Sample", "Scenario", "Side", "SpecError", "StoreError", "TestKind", "TestSpec", "Variant",
           "compare", "data_dir", "default_labels", "design_digest", "labelled", "make_run", "measure",
           "prepare_side", "ratio", "run_sides", "save_calibration", "snapshot", "via"]
