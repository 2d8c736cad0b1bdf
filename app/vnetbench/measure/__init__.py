"""Measurements between deployed endpoints: specs, probe drivers, the runner, the run store, comparisons.

No Qt here; the GUI dock and the CLI drive the same ``measure()`` and ``RunStore``.
"""

from .compare import Comparison, Flag, compare, save_calibration
from .context import design_digest, make_run, snapshot
from .result import Measurement, Run, RunStatus, Sample
from .runner import ProbeFailure, Runner, measure
from .spec import SWEEP_SIZES, Scenario, SpecError, TestKind, TestSpec, Variant
from .store import RunStore, StoreError, data_dir

__all__ = ["SWEEP_SIZES", "Comparison", "Flag", "Measurement", "ProbeFailure", "Run", "RunStatus", "RunStore",
           "Runner", "Sample", "Scenario", "SpecError", "StoreError", "TestKind", "TestSpec", "Variant", "compare",
           "data_dir", "design_digest", "make_run", "measure", "save_calibration", "snapshot"]
