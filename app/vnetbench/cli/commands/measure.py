"""``vnetbench measure FILE --from A --to B --test KIND``: measure a deployed pair and compare with the prediction.

The design must already be deployed (``vnetbench lab up FILE`` for the local lab, ``vnetbench deploy FILE
--backend B`` for the others): measuring never deploys. The run is stored
(``vnetbench runs`` lists it) with the prediction at the time. ``--versus FILE2`` runs the same test on a
second design (or ``--versus-from/--versus-to`` on a second pair) right after, for an A/B comparison.
Exit status: 0 measured, 1 a probe failed or a result contradicts the prediction, 2 bad input, 3 backend
or run store trouble (the result is printed and kept in a file the message names), 128 + the signal when
Ctrl-C (130), TERM or HUP stopped it (its probes are stopped, nothing is stored).
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from typing import Any

from ...backends import BackendError
from ...backends.locking import Busy
from ...measure import (Run, RunStatus, RunStore, Scenario, Side, SpecError, TestKind, TestSpec, Variant, compare,
                        default_labels, labelled, prepare_side, ratio, run_sides, via)
from ...measure.result import summary_lines
from ...measure.runner import measure_locks
from ...model import Index
from ...model.text import one_line
from ...predict import Engine
from ..backend_options import SignalToken, add_backend_options, connect_backend, open_backend, run_cancellable
from ..common import load_design, print_json, say
from ..main import EXIT_BACKEND, EXIT_NO, EXIT_OK, EXIT_USAGE, CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("measure",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the design file (deployed with `vnetbench lab up FILE`, or `vnetbench deploy FILE "
                                "--backend B` for another backend)")
    p.add_argument("--from", dest="src", required=True, metavar="A", help="source VM (name or id)")
    p.add_argument("--to", dest="dst", required=True, metavar="B", help="destination VM (name or id)")
    p.add_argument("--test", required=True, choices=[k.value for k in TestKind],
                   help="throughput (iperf3), sweep (message sizes), rr (sockperf round trip), pps (UDP 64 B)")
    p.add_argument("--duration", type=float, default=5.0, help="seconds per run (per size for sweep; default 5)")
    p.add_argument("--streams", type=int, default=1, help="parallel TCP streams (throughput)")
    p.add_argument("--reverse", action="store_true", help="B sends to A (A still opens the connection)")
    p.add_argument("--udp", type=float, metavar="MBITS", help="throughput over UDP at this rate in Mbit/s")
    p.add_argument("--size", type=int, default=1024, help="request/response size in bytes (rr; default 1024)")
    p.add_argument("--family", type=int, choices=(4, 6), default=4,
                   help="measure over IPv4 (default) or IPv6, against that family's prediction (rr over IPv6 "
                        "runs Debian's sockperf 3.7 through vnetbench's IPv6 shim, built with gcc)")
    add_backend_options(p)
    p.add_argument("--versus", metavar="FILE2", help="A/B: run the same test on this design right after")
    p.add_argument("--versus-from", metavar="C", help="A/B: source in the second variant (default: A)")
    p.add_argument("--versus-to", metavar="D", help="A/B: destination in the second variant (default: B)")
    p.add_argument("--no-store", action="store_true", help="do not keep the run in the run store")
    p.add_argument("--json", action="store_true", help="print the run(s) and comparison(s) as JSON")
    p.set_defaults(func=run)


def _spec(args: argparse.Namespace) -> TestSpec:
    spec = TestSpec(TestKind(args.test), duration=args.duration, streams=args.streams, reverse=args.reverse,
                    protocol="udp" if args.udp is not None else "tcp",
                    udp_rate_mbps=args.udp if args.udp is not None else 100.0, message_size=args.size,
                    family=args.family)
    try:
        spec.check()
    except SpecError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    return spec


def _side(backend: Any, spec: TestSpec, variant: Variant, options: tuple[str, str]) -> Side:
    design = load_design(variant.design)
    for name, option in zip((variant.src, variant.dst), options):
        try:
            Index(design).endpoint(name)
        except LookupError as exc:
            raise CliError(f"{option}: {exc.args[0]}", EXIT_USAGE) from None
    try:
        return prepare_side(backend, design, variant,
                            lambda d, a, b: Engine(d, spec.family).predict(a, b, spec.proto))
    except BackendError as exc:
        how = f"vnetbench lab up {variant.design}" if backend.name == "local" else \
            f"vnetbench deploy {variant.design} --backend {backend.name}"
        hint = "" if "lab up" in str(exc) or "vnetbench deploy" in str(exc) else \
            f"; measuring needs the design deployed (`{how}`)"
        raise CliError(f"{exc}{hint}", EXIT_BACKEND) from None


class ProgressBar:
    """A one-line bar on stderr, redrawn in place on a terminal and every 25% otherwise."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.tty = sys.stderr.isatty()
        self.last_quarter = -1

    def __call__(self, done: int, total: int, message: str) -> None:
        frac = done / total if total else 0.0
        bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
        line = one_line(f"{self.label} [{bar}] {100 * frac:3.0f}% {message}")
        if self.tty:
            sys.stderr.write("\r" + line[:150].ljust(100))
        elif int(4 * frac) != self.last_quarter:
            self.last_quarter = int(4 * frac)
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\n")


def _print_run(result: Run) -> None:
    stored = "stored" if result.id is not None else "not stored"
    say(one_line(f"{result.title}  ({stored}, {result.design_name})"))
    if result.status == RunStatus.OK:
        for line in summary_lines(result.spec, result.summary):
            say(f"  measured   {line}")
    else:
        say(f"  {result.status.upper()}: {result.error}")
    p = result.prediction
    if p is not None:
        est = p.estimate
        parts = [f"estimate {est.throughput_mbps:.0f} Mbit/s" if est.throughput_mbps is not None
                 else "no throughput estimate"]
        if est.latency_us is not None:
            parts.append(f"added latency {est.latency_us:.1f} us one way")
        say(f"  predicted  {p.verdict}: {', '.join(parts)} (bottleneck {est.bottleneck or '-'}; "
            f"{est.source or 'no calibration'})")
    for line in compare(result).lines()[1:]:
        say(f"  {line}")


def run(args: argparse.Namespace) -> int:
    spec = _spec(args)
    store = None if args.no_store else RunStore()
    variants = [Variant("", args.file, args.src, args.dst)]
    options = [("--from", "--to")]
    if args.versus or args.versus_from or args.versus_to:
        variants.append(Variant("", args.versus or args.file, args.versus_from or args.src,
                                args.versus_to or args.dst))
        options.append(("--versus-from" if args.versus_from else "--from",
                        "--versus-to" if args.versus_to else "--to"))
    backend = open_backend(args, connect=False)
    try:
        # The lock first: a second measurement of a deployment is refused before it predicts or sets anything up.
        with _locks(backend, variants):
            connect_backend(backend)
            sides = [_side(backend, spec, v, o) for v, o in zip(variants, options)]
            if len(sides) > 1:
                sides = labelled(sides, default_labels(variants[0], variants[1], (via(sides[0].prediction),
                                                                                  via(sides[1].prediction))))
                try:
                    Scenario(spec, tuple(s.variant for s in sides)).check()
                except SpecError as exc:
                    raise CliError(str(exc), EXIT_USAGE) from None
            bar = ProgressBar(f"{args.src} -> {args.dst}" if len(sides) == 1 else "A/B")
            token, unstored = SignalToken(), []
            try:
                results = run_cancellable(lambda token: run_sides(
                    spec, sides, backend_name=args.backend, store=store, cancel=token, progress=bar,
                    on_store_error=lambda run, exc: unstored.append(f"{run.title}: not stored: {exc}")), token)
            except BackendError as exc:  # an endpoint that cannot be reached (SSH to a vSphere VM, ...)
                raise CliError(str(exc), EXIT_BACKEND) from None
            finally:
                bar.close()
    finally:
        backend.close()
    if not results:
        raise CliError("cancelled before anything was measured", 128 + token.signum if token.signum else EXIT_NO)
    comparisons = [compare(r) for r in results]
    if args.json:
        print_json([{"run": r.to_dict(), "comparison": c.to_dict()} for r, c in zip(results, comparisons)]
                   if len(variants) > 1 else {"run": results[0].to_dict(), "comparison": comparisons[0].to_dict()})
    else:
        for r in results:
            _print_run(r)
        if len(results) > 1:
            _print_ab(results)
    for line in unstored:
        say(f"vnetbench measure: {line}", file=sys.stderr)
    if token.signum:
        return 128 + token.signum
    if unstored:
        return EXIT_BACKEND
    bad = any(r.status != RunStatus.OK for r in results) or any(c.contradicts for c in comparisons)
    return EXIT_NO if bad else EXIT_OK


def _locks(backend: Any, variants: list[Variant]) -> ExitStack:
    """Measure a deployment only when no other measurement of it runs (here, or in the designer's Measure
    dock): two at once would disturb both figures."""
    try:
        return measure_locks(backend.deployment(load_design(v.design).id) for v in variants)
    except Busy as busy:
        raise CliError(f"another measurement of this deployment is running (pid {busy.holder}); two at once "
                       "would disturb both figures: wait for it to finish", EXIT_BACKEND) from None
    except OSError as exc:
        raise CliError(f"cannot take the measure lock: {exc.strerror or exc}", EXIT_BACKEND) from None


def _print_ab(results: list[Run]) -> None:
    (a, unit), b = results[0].headline(), results[1].headline()[0]
    r = ratio(results[0], results[1])
    if r is None or a is None or b is None:
        say("A/B: no comparison (a variant has no result)")
        return
    say(one_line(f"A/B: {results[0].label} {a:.6g} {unit}  vs  {results[1].label} {b:.6g} {unit}  (B/A = {r:.3f})"))
