"""A pNIC's speed as Linux emulates it, for every backend that emulates pNICs (the local lab, KVM on one host).

A pNIC carrying several VLANs is several veths (one bridge per VLAN), so one tbf per veth would let the VLANs
add up past the cap. Instead each member veth redirects its egress into one ifb whose tbf runs at the pNIC's
speed: all its VLANs share it, as on the wire.
"""

from __future__ import annotations

from collections.abc import Iterable


def burst_bytes(rate_mbit: int) -> int:
    """The tbf bucket: 2 ms at line rate, and never less than 32 KiB (a few full-size frames with offloads)."""
    return max(32 * 1024, rate_mbit * 1_000_000 // 8 // 500)


def shaper_commands(ifb: str, rate_mbit: int, members: Iterable[str]) -> list[list[str]]:
    """The ``tc`` commands (each without the word ``tc``) that cap ``members``' egress together at
    ``rate_mbit`` through ``ifb``, which must exist and be up."""
    commands = [["qdisc", "replace", "dev", ifb, "root", "tbf", "rate", f"{rate_mbit}mbit",
                 "burst", str(burst_bytes(rate_mbit)), "latency", "20ms"]]
    for dev in members:
        commands += [["qdisc", "replace", "dev", dev, "clsact"],
                     ["filter", "add", "dev", dev, "egress", "protocol", "all", "u32", "match", "u32", "0", "0",
                      "action", "mirred", "egress", "redirect", "dev", ifb]]
    return commands
