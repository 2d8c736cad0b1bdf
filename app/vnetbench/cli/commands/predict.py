"""``vnetbench predict FILE --from A --to B``: how traffic between two endpoints travels, like a traceroute."""

from __future__ import annotations

import argparse

from ...predict import Engine, Prediction, Trace
from ...predict.network import Network
from ...predict.calibration import CalibrationError
from ..common import load_design, print_json
from ..main import EXIT_OK, EXIT_USAGE, CliError


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("predict",
                              description="Walk one flow in both directions and explain the verdict.")
    p.add_argument("file", metavar="FILE", help="design file (.vnet.yaml)")
    p.add_argument("--from", dest="src", required=True, metavar="A", help="source VM or physical host (name or id)")
    p.add_argument("--to", dest="dst", required=True, metavar="B", help="destination VM or physical host")
    p.add_argument("--proto", choices=["tcp", "udp", "icmp", "any"], help="protocol (default: any conversation)")
    p.add_argument("--port", type=int, help="destination port (with --proto tcp/udp)")
    p.add_argument("--json", action="store_true", help="print the prediction as JSON")
    p.set_defaults(func=run)


def pnic_name(net: Network, pnic_id: str) -> str:
    """``esx01/vmnic0`` for a pNIC id (the id itself if the design does not know it)."""
    pnic = net.pnic.get(pnic_id)
    return f"{net.host_name(net.host_of_pnic[pnic_id])}/{pnic.name}" if pnic is not None else pnic_id


def _trace_lines(title: str, trace: Trace, net: Network, told: tuple[str, ...] = ()) -> list[str]:
    lines = [f"{title}: {trace.verdict}"]
    for i, hop in enumerate(trace.hops, 1):
        detail = f"  ({hop.detail})" if hop.detail else ""
        lines.append(f"  {i:2d}  {hop.kind:<16} {hop.name}{detail}")
    lines.append(f"  pNICs crossed: {', '.join(pnic_name(net, p) for p in trace.pnics) or 'none'}")
    lines.append(f"  routed by: {', '.join(trace.routed_by) or 'nothing (switched only)'}")
    for rule in trace.rules:
        lines.append(f"  rule: {rule}")
    if trace.reasons and trace.reasons == told:
        lines.append("  why: as above")
    elif trace.reasons:
        lines.append("  why:")
        lines += [f"    - {reason}" for reason in trace.reasons]
    est = trace.estimate
    if est.throughput_mbps is not None:
        lines.append(f"  estimate: {est.throughput_mbps:,.0f} Mbit/s, bottleneck {est.bottleneck}; "
                     f"+{est.latency_us} us added latency ({est.source})")
    return lines


def render(p: Prediction, src_name: str, dst_name: str, net: Network) -> str:
    lines = [f"{src_name} -> {dst_name}: {p.verdict}"]
    lines += [f"  - {r}" for r in p.reasons]
    lines.append("")
    lines += _trace_lines("forward", p.forward, net, p.reasons)
    lines.append("")
    lines += _trace_lines("reply", p.reverse, net)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    if args.port is not None and not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: a port is 1-65535")
    try:
        engine = Engine(load_design(args.file))
    except CalibrationError as exc:
        raise CliError(f"calibration: {exc}") from None
    try:
        src, dst = engine.resolve(args.src), engine.resolve(args.dst)
    except LookupError as exc:
        raise CliError(str(exc).strip("'\""), EXIT_USAGE) from None
    p = engine.predict(src, dst, args.proto, args.port)
    if args.json:
        print_json(p.to_dict())
    else:
        index = engine.network.index
        print(render(p, index.get(src).name, index.get(dst).name, engine.network))
    return EXIT_OK
