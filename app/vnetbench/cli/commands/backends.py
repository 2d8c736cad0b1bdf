"""``vnetbench backends``: the backend plugins installed, their versions, what each can build, load errors."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from ...backends.discovery import PluginInfo, discover
from ...model.text import one_line
from ..common import print_json, say
from ..main import EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "backends", description="List the backend plugins (entry-point group vnetbench.backends): version, "
                                "capabilities, and why a plugin failed to load.")
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=run)


def describe(info: PluginInfo) -> dict[str, Any]:
    """One plugin as plain data; capabilities as the backend class declares them."""
    capabilities = None
    if info.backend is not None:
        declared = dataclasses.asdict(info.backend.capabilities)
        declared["switch_kinds"] = sorted(str(kind) for kind in info.backend.capabilities.switch_kinds)
        capabilities = declared
    return {"name": info.name, "distribution": info.distribution, "version": info.version, "ok": info.ok,
            "capabilities": capabilities, "error": info.error}


def run(args: argparse.Namespace) -> int:
    plugins = [describe(info) for info in discover()]
    if args.json:
        print_json(plugins)
        return EXIT_OK
    if not plugins:
        say("no backend plugins installed")
    for plugin in plugins:
        source = " ".join(filter(None, (plugin["distribution"], plugin["version"]))) or "built in"
        if not plugin["ok"]:
            say(f"{plugin['name']} ({source}): failed to load: {one_line(plugin['error'])}")
            continue
        can = plugin["capabilities"]
        flags = [name.replace("_", " ") for name, value in can.items() if value is True]
        say(f"{plugin['name']} ({source})")
        say(f"  switch kinds: {', '.join(can['switch_kinds'])}")
        say(f"  can: {', '.join(flags) or 'nothing more'}")
    return EXIT_OK
