"""What a verification observed for the pair the path dock shows: which pNICs counted the pair's bursts, beside
the predicted ones, and which predicted pNIC hops did (or did not) count them.

The path dock asks ``observed_html`` for its "Observed" line and ``counted`` for each pNIC hop's mark; both read
the last verification of the workbench (``VerifyRunner.latest``), so nothing here probes or predicts.
"""

from __future__ import annotations

import html

from ...measure.verify import Cell, Outcome, Verification
from ...model import Index
from .verify import OUTCOME_COLORS


def pnic_name(index: Index, object_id: str) -> str:
    """``esx01/vmnic0``: a pNIC as a verification's cells name it."""
    obj, host = index.get(object_id), index.parent(object_id)
    return f"{host.name}/{obj.name}" if obj is not None and host is not None else object_id


def observed_html(verification: Verification | None, src: str, dst: str) -> str:
    """The "Observed" line: the pair's outcome, the pNICs that counted its burst and the predicted ones, and where
    reality differs; empty when no verification checked the pair."""
    cell = verification.cell(src, dst) if verification is not None else None
    if verification is None or cell is None:
        return ""
    colour = OUTCOME_COLORS.get(cell.outcome, "#555")
    head = (f"<b>Observed</b> ({html.escape(verification.headline())}): "
            f"<span style='color:{colour}'><b>{html.escape(str(cell.outcome))}</b></span>")
    rows = [head, f"pNICs that counted the burst: {html.escape(_pnics(cell.observed_pnics))}",
            f"predicted pNICs: {html.escape(_pnics(cell.predicted_pnics))}"]
    rows += [f"<span style='color:{OUTCOME_COLORS[Outcome.CONTRADICTED]}'>{html.escape(c.what)}: "
             f"{html.escape(c.detail)}</span>" for c in cell.contradictions]
    return "<br>".join(rows)


def counted(cell: Cell | None, index: Index, object_id: str | None) -> str:
    """A pNIC hop's mark: "counted" or "not counted" by the verification's burst; "" when its path was not
    observed (no verification, no counters, or not a pNIC the verification names)."""
    if cell is None or cell.observed_pnics is None or not object_id:
        return ""
    name = pnic_name(index, object_id)
    if name in cell.observed_pnics:
        return "counted"
    return "not counted" if name in cell.predicted_pnics else ""


def _pnics(names: tuple[str, ...] | None) -> str:
    if names is None:
        return "not observed (no counters read)"
    return ", ".join(names) if names else "none (stayed in the host)"
