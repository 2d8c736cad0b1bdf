"""The lab's neighbour (ARP) entries, which verify must pace: every namespace of every lab shares the host
kernel's one ARP table.

Linux keeps one table for all network namespaces, bounded by ``net.ipv4.neigh.default.gc_thresh3`` (1024 by
default; only the host's root can change it, a rootless lab cannot). A new entry past that bound is refused
("neighbor table overflow" in the kernel log) and the packet that needed it is dropped; an entry stays pinned
while it is REACHABLE (15 to 45 s after its last answer), so a verification of every pair of a 50-VM lab
(about 1,300 entries: each VM for each peer in its subnet, both ways, and the gateways) loses echoes whatever
their pace. So the lab tells verify how many entries its pairs may need at once, and drops the learned ones
between groups of pairs.
"""

from __future__ import annotations

from pathlib import Path

from .context import Context
from .desired import DesiredLab

GC_THRESH3 = Path("/proc/sys/net/ipv4/neigh/default/gc_thresh3")
#: The kernel's bound when it cannot be read (its default).
DEFAULT_BOUND = 1024
#: The share of the bound one verification may fill: the host and other labs keep entries of their own.
SHARE = 0.75


def neighbour_room(bound_file: Path = GC_THRESH3) -> int:
    """How many neighbour entries one verification may have the lab hold at once."""
    try:
        bound = int(bound_file.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        bound = DEFAULT_BOUND
    return int(bound * SHARE)


def forget_neighbours(ctx: Context, lab: DesiredLab) -> None:
    """Flush the learned neighbour entries of every namespace of the lab (static ones stay), in one process."""
    names = sorted({res.spec["ns"] for res in lab.resources.values() if res.kind == "netns"})
    ctx.run_per_ns(names, "neigh flush all")
