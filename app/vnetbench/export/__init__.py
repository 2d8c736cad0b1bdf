"""Export a design for documentation: diagrams, graph formats, verdict matrices, results and a report.

One function per format, each taking a ``Topology``, an output path and ``Options``, writing the file
atomically and returning what it wrote. The GUI's File > Export and ``vnetbench export`` both call
``export(topology, fmt, out, options)``. The text formats (draw.io, DOT, Mermaid, CSV, JSON) need no Qt;
the pictures and the PDF import Qt lazily, so a headless CLI only starts Qt when it draws.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import Index, Topology
from ..model.validate import drawing_errors
from . import style
from .files import write_bytes, write_text
from .scene import Scene, build_scene, highlighted


class ExportError(ValueError):
    """Options that cannot work (unknown object, bad scale); the message says what to change."""


@dataclass
class Options:
    """What to export. ``prediction`` (a ``vnetbench.predict.Prediction``) wins over ``path`` (two endpoints
    whose path is predicted here); ``dpi`` wins over ``scale`` for PNG; ``pairs`` are the report's paths;
    ``runs`` are measured runs (``vnetbench.measure.result.Run``) for results and the report; ``engine`` is
    a ``vnetbench.predict.Engine`` already holding this design (the GUI's), else one is made."""

    select: Sequence[str] | None = None
    path: tuple[str, str] | None = None
    prediction: Any = None
    scale: float = 1.0
    dpi: float | None = None
    pairs: Sequence[tuple[str, str]] = ()
    runs: Sequence[Any] = field(default_factory=list)
    engine: Any = None
    #: stored ``vnetbench verify`` results (``vnetbench.measure.verify.Verification``) for the report
    verifications: Sequence[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Exported:
    path: Path
    format: str
    pages: int = 1
    scale: float = 1.0


# --- shared preparation ----------------------------------------------------------------------------------


def predict_path(topology: Topology, src: str, dst: str, engine: Any = None) -> Any:
    """The prediction for one pair (through the caller's engine when it has one)."""
    from ..predict import predict

    try:
        return engine.predict(src, dst) if engine is not None else predict(topology, src, dst)
    except LookupError as exc:
        raise ExportError(f"--path: {exc.args[0] if exc.args else exc}") from None


def _prediction(topology: Topology, options: Options) -> Any:
    if options.prediction is not None:
        return options.prediction
    if options.path:
        return predict_path(topology, *options.path, engine=options.engine)
    return None


def _scene(topology: Topology, options: Options) -> tuple[Scene, set[str], set[str], str, str]:
    """The scene plus the highlighted boxes, lines, colour and caption of the chosen path."""
    try:
        scene = build_scene(topology, options.select)
    except LookupError as exc:
        raise ExportError(str(exc.args[0])) from None
    prediction = _prediction(topology, options)
    if prediction is None:
        return scene, set(), set(), "", ""
    ids, color, caption = describe_path(topology, prediction)
    boxes, lines = highlighted(scene, ids)
    return scene, boxes, lines, color, caption


def describe_path(topology: Topology, prediction: Any) -> tuple[list[str | None], str, str]:
    """The object ids a prediction passes (both directions and the endpoints), its verdict's colour and a
    caption such as ``web01 → db01: routed-via-physical``."""
    ids = [h.object_id for trace in (prediction.forward, prediction.reverse) for h in trace.hops]
    ids += [prediction.forward.src, prediction.forward.dst]
    index = Index(topology)
    names = [getattr(index.get(i), "name", i) for i in (prediction.forward.src, prediction.forward.dst)]
    verdict = str(prediction.verdict)
    color = style.VERDICT_COLORS.get(verdict, style.UNKNOWN_COLOR)
    return ids, color, f"{names[0]} \u2192 {names[1]}: {verdict}"


def _highlight(topology: Topology, options: Options):
    from .diagram import Highlight

    scene, boxes, lines, color, caption = _scene(topology, options)
    return scene, Highlight(boxes, lines, color or style.VERDICT_COLORS["in-host"], caption)


def _scale(options: Options) -> float:
    scale = options.dpi / 96.0 if options.dpi else options.scale
    if not (isinstance(scale, (int, float)) and 0 < scale <= 16):
        raise ExportError(f"scale must be between 0 and 16 (dpi between 1 and 1536), not {scale}")
    return float(scale)


# --- diagrams ---------------------------------------------------------------------------------------------


def diagram_svg(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .diagram import svg_bytes

    scene, light = _highlight(topology, options or Options())
    return Exported(write_text(out, svg_bytes(scene, light, topology.description).decode("utf-8")), "svg")


def diagram_png(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .diagram import png_bytes

    options = options or Options()
    scale = _scale(options)
    scene, light = _highlight(topology, options)
    data, used = png_bytes(scene, scale, light)
    return Exported(write_bytes(out, data), "png", scale=used)


def diagram_pdf(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .diagram import pdf_bytes

    scene, light = _highlight(topology, options or Options())
    return Exported(write_bytes(out, pdf_bytes(scene, light)), "pdf")


def diagram_drawio(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .drawio import drawio_text

    scene, boxes, lines, color, _ = _scene(topology, options or Options())
    return Exported(write_text(out, drawio_text(scene, boxes, lines, color)), "drawio")


def diagram_dot(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .dot import dot_text

    scene, boxes, lines, color, _ = _scene(topology, options or Options())
    return Exported(write_text(out, dot_text(scene, boxes, lines, color)), "dot")


def diagram_mermaid(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .mermaid import mermaid_text

    scene, boxes, lines, color, _ = _scene(topology, options or Options())
    return Exported(write_text(out, mermaid_text(scene, boxes, lines, color)), "mermaid")


# --- matrix, results, report -------------------------------------------------------------------------------


#: Most endpoints a matrix export that holds every cell at once takes (the grid as JSON or a heatmap: 4 million
#: cells; the CSV grid, written whole: 400 million, about 6 GB). Past it, one line names the streamed output.
MAX_GRID_ENDPOINTS = {"matrix-json": 2_000, "matrix-png": 2_000, "matrix-svg": 2_000, "matrix-csv": 20_000}


def _grid_fits(topology: Topology, fmt: str) -> None:
    n = len(topology.vms) + len(topology.physical_hosts)
    if n > MAX_GRID_ENDPOINTS[fmt]:
        raise ExportError(f"{fmt}: {n:,} endpoints are too many for a whole grid (at most "
                          f"{MAX_GRID_ENDPOINTS[fmt]:,}); stream every pair with vnetbench matrix FILE --csv or "
                          "--jsonl, or count them with --summary")


def matrix_csv(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .matrix import matrix_csv as text, verdict_table

    _grid_fits(topology, "matrix-csv")
    return Exported(write_bytes(out, text(verdict_table(topology, (options or Options()).engine))), "matrix-csv")


def matrix_json(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .matrix import matrix_json as text, verdict_table

    _grid_fits(topology, "matrix-json")
    table = verdict_table(topology, (options or Options()).engine)
    return Exported(write_text(out, text(table, topology.name)), "matrix-json")


def _chart_scale(options: Options) -> float:
    """Charts come out at twice their layout's pixels (``charts.PIXEL_RATIO``) unless a DPI is asked for."""
    from .charts import PIXEL_RATIO

    return _scale(options) if options.dpi else PIXEL_RATIO * _scale(options)


def _heatmap(topology: Topology, out: str | os.PathLike, options: Options | None, fmt: str) -> Exported:
    from .charts import heatmap_picture
    from .matrix import verdict_table

    _grid_fits(topology, f"matrix-{fmt}")
    options = options or Options()
    table = verdict_table(topology, options.engine)
    scale = _chart_scale(options) if fmt == "png" else 1.0
    data = heatmap_picture(table.names, table.grid, fmt, f"{topology.name}: verdict matrix", scale)
    return Exported(_write_picture(out, data, fmt), f"matrix-{fmt}", scale=scale)


def matrix_png(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    return _heatmap(topology, out, options, "png")


def matrix_svg(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    return _heatmap(topology, out, options, "svg")


def results_csv(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .results import results_csv as text

    return Exported(write_text(out, text((options or Options()).runs)), "results-csv")


def results_json(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .results import results_json as text

    return Exported(write_text(out, text((options or Options()).runs, topology.name)), "results-json")


def _results_plot(topology: Topology, out: str | os.PathLike, options: Options | None, fmt: str) -> Exported:
    from .charts import runs_picture

    options = options or Options()
    scale = _chart_scale(options) if fmt == "png" else 1.0
    return Exported(_write_picture(out, runs_picture(options.runs, fmt, scale), fmt), f"results-{fmt}", scale=scale)


def _write_picture(out: str | os.PathLike, data: bytes, fmt: str) -> Path:
    """SVG is text (XML) and goes through the text writer's character filter; PNG as it is."""
    return write_text(out, data.decode("utf-8")) if fmt == "svg" else write_bytes(out, data)


def results_png(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    return _results_plot(topology, out, options, "png")


def results_svg(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    return _results_plot(topology, out, options, "svg")


def report_html(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .report import report_html as html

    options = options or Options()
    return Exported(write_text(out, html(topology, options, options.engine)), "report-html")


def report_pdf(topology: Topology, out: str | os.PathLike, options: Options | None = None) -> Exported:
    from .report import report_pdf as pdf

    options = options or Options()
    data, pages = pdf(topology, options, options.engine)
    return Exported(write_bytes(out, data), "report-pdf", pages=pages)


#: format name (as ``vnetbench export --format`` takes it) -> exporter and the usual file suffix.
FORMATS: dict[str, tuple[Callable[..., Exported], str]] = {
    "svg": (diagram_svg, ".svg"),
    "png": (diagram_png, ".png"),
    "pdf": (diagram_pdf, ".pdf"),
    "drawio": (diagram_drawio, ".drawio"),
    "dot": (diagram_dot, ".dot"),
    "mermaid": (diagram_mermaid, ".mmd"),
    "matrix-csv": (matrix_csv, "-matrix.csv"),
    "matrix-json": (matrix_json, "-matrix.json"),
    "matrix-png": (matrix_png, "-matrix.png"),
    "matrix-svg": (matrix_svg, "-matrix.svg"),
    "results-csv": (results_csv, "-results.csv"),
    "results-json": (results_json, "-results.json"),
    "results-png": (results_png, "-results.png"),
    "results-svg": (results_svg, "-results.svg"),
    "report-html": (report_html, "-report.html"),
    "report-pdf": (report_pdf, "-report.pdf"),
}


def export(topology: Topology, fmt: str, out: str | os.PathLike, options: Options | None = None) -> Exported:
    """Write ``topology`` as ``fmt``; a design no drawing survives (an id used twice, a box off the
    canvas) is refused with its first such problem."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    blocking = drawing_errors(topology)
    if blocking:
        first = blocking[0]
        more = f"; {len(blocking) - 1} more such problems" if len(blocking) > 1 else ""
        raise ExportError(f"{first.path}: {first.message} ({first.hint}){more}; `vnetbench validate` lists them")
    return FORMATS[fmt][0](topology, out, options or Options())
