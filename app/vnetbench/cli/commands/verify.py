"""``vnetbench verify FILE [--backend NAME ...]``: prove a deployed design against its prediction.

Every ordered pair of a small design (one representative per pair of endpoint classes of a large one; the
output says which) is probed where it is deployed: ICMP and the TCP/UDP flows the design's rules name
(reachability), the pNIC counters around a small burst (the observed path: in-host means no pNIC counted
it, via-physical that the predicted pNICs did) and a don't-fragment echo at the predicted largest packet and
one byte above. Each pair is confirmed, contradicted (with the hop where reality differs) or not checked.
The verification is stored in the run store with the design digest and the prediction at the time; ``-o``
writes it as CSV or JSON. Exit status: 0 all confirmed, 1 a contradiction, 2 bad input, 3 backend or store
trouble, 128 + the signal when Ctrl-C (130) stopped it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ...backends import BackendError
from ...measure.store import RunStore, StoreError
from ...measure.verify import ALL_PAIRS_UP_TO, PARALLEL, Verification, Verifier, plan_pairs
from ...model.fileformat import atomic_write
from ...predict import Engine
from ..backend_options import SignalToken, add_backend_options, connect_backend, open_backend, run_cancellable
from ..common import load_design, print_json, say
from ..main import EXIT_BACKEND, EXIT_NO, EXIT_OK, EXIT_USAGE, CliError
from .measure import ProgressBar


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("verify", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the deployed design file")
    add_backend_options(p)
    p.add_argument("--parallel", type=int, default=PARALLEL, metavar="N",
                   help=f"probes running at once (default {PARALLEL})")
    p.add_argument("--all-pairs-up-to", type=int, default=ALL_PAIRS_UP_TO, metavar="N",
                   help=f"probe every ordered pair up to N endpoints, else one per pair of endpoint classes "
                        f"(default {ALL_PAIRS_UP_TO})")
    p.add_argument("--family", type=int, choices=(4, 6), default=4,
                   help="probe over IPv4 (default) or IPv6 (ping -6 and the IPv6 limit), against that family's "
                        "prediction")
    p.add_argument("-o", "--output", metavar="OUT", help="also write the verification to OUT.csv or OUT.json")
    p.add_argument("--no-store", action="store_true", help="do not keep the verification in the run store")
    p.add_argument("--json", action="store_true", help="print the verification as JSON")
    p.set_defaults(func=run)


def write(verification: Verification, out: str) -> Path:
    """``out`` as CSV or JSON by its suffix (atomic)."""
    path = Path(out)
    if path.suffix.lower() not in (".csv", ".json"):
        raise CliError(f"-o {out}: name a .csv or .json file", EXIT_USAGE)
    text = verification.to_csv() if path.suffix.lower() == ".csv" else json.dumps(verification.to_dict(), indent=2)
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise CliError(f"-o {out}: {exc.strerror or exc}", EXIT_BACKEND) from None
    return path


def run(args: argparse.Namespace) -> int:
    if args.parallel < 1:
        raise CliError("--parallel must be 1 or more (probes running at once)", EXIT_USAGE)
    design = load_design(args.file)
    engine = Engine(design, args.family)
    matrix = engine.matrix()
    if len(matrix.endpoints) < 2:
        raise CliError(f"{args.file}: the design has fewer than two VMs or physical hosts, so there is no pair "
                       "to verify", EXIT_USAGE)
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict, args.all_pairs_up_to)
    scope += ", IPv6" if args.family == 6 else ""
    backend = open_backend(args, connect=False)
    token = SignalToken()
    try:
        connect_backend(backend)
        say(f"verifying {design.name} on {backend.name}: {scope}", file=sys.stderr)
        bar = ProgressBar("verify")
        try:
            verification = run_cancellable(lambda cancel: Verifier(
                backend, design, plans, scope, args.parallel, bar, cancel, left, args.family).run(), token)
        except BackendError as exc:
            raise CliError(str(exc), EXIT_BACKEND) from None
        finally:
            bar.close()
    finally:
        backend.close()
    stored = ""
    if not args.no_store:
        try:
            stored = f"stored as verification #{RunStore().add_verification(verification)}"
        except StoreError as exc:
            stored = f"not stored: {exc}"
    if args.output:
        write(verification, args.output)
    if args.json:
        print_json(verification.to_dict())
    else:
        for line in verification.lines():
            say(line)
    if stored:
        say(stored, file=sys.stderr)
    if token.signum:
        return 128 + token.signum
    if stored.startswith("not stored"):
        return EXIT_BACKEND
    return EXIT_NO if verification.contradictions else EXIT_OK
