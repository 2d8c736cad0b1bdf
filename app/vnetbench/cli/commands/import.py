"""``vnetbench import --backend vsphere ... -o FILE``: read what a backend holds into a design file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ...model import save
from ..backend_options import add_backend_options, guarded, open_backend, progress_printer
from ..common import print_json, say
from ..main import EXIT_OK


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "import",
        description="Read hosts, switches, portgroups and VMs from a backend (vSphere) into a design that "
                    "opens on the canvas.")
    add_backend_options(parser, default=None)
    parser.add_argument("-o", "--output", required=True, help="design file to write (.vnet.yaml)")
    parser.add_argument("--name", help="name of the new design")
    parser.add_argument("--json", action="store_true", help="print what was written as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    backend = open_backend(args)
    try:
        design = guarded(lambda: backend.import_design(progress_printer(True)))
    finally:
        backend.close()
    if args.name:
        design.name = args.name
    save(design, args.output)
    if args.json:
        print_json({"path": args.output, "name": design.name, "hosts": len(design.hosts),
                    "switches": len(design.switches), "vms": len(design.vms)})
    else:
        say(f"wrote {args.output}: {len(design.hosts)} hosts, {len(design.switches)} switches, "
            f"{len(design.vms)} VMs")
    unknown = [vm.name for vm in design.vms if any(n.network for n in vm.vnics) and not any(n.ip for n in vm.vnics)]
    if unknown:
        say(f"no address could be read for {len(unknown)} VMs ({', '.join(unknown[:5])}"
            f"{', ...' if len(unknown) > 5 else ''}): prediction cannot reach them until their vNICs get an ip",
            file=sys.stderr)
    return EXIT_OK
