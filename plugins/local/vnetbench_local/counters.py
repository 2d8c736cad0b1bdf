"""The lab's pNIC counters, for ``vnetbench verify``: the bytes each design pNIC's veths carried.

A pNIC is emulated by one veth per physical VLAN between the host's namespace (the ``u`` end, see
``desired.uplinks``) and its physical switch's (the ``p`` end). Every frame that crosses the pNIC, either way,
passes each end once (a veth's two ends count the same frames, one's rx being the other's tx), so the rx + tx
bytes of either end summed over the pNIC's VLANs is what the pNIC carried. They are read on the switch side:
one namespace per physical switch instead of one per host, so a read starts fewer processes.
"""

from __future__ import annotations

import json

from .context import Context
from .desired import DesiredLab


def pnic_ends(lab: DesiredLab, switch_side: bool = False) -> dict[str, list[tuple[str, str]]]:
    """For each pNIC id: the (namespace, interface) of its veths' host-side ends (switch-side with
    ``switch_side``)."""
    ends: dict[str, list[tuple[str, str]]] = {}
    for res in lab.resources.values():
        a, b = (res.spec.get(k) or {} for k in "ab") if res.kind == "veth" else ({}, {})
        if res.object_id and a.get("name", "").startswith("u") and b.get("name", "").startswith("p"):
            end = b if switch_side else a
            ends.setdefault(res.object_id, []).append((end["ns"], end["name"]))
    return ends


def read_pnic_counters(ctx: Context, lab: DesiredLab) -> dict[str, int]:
    """Bytes per pNIC id, read from the kernel in one process for all namespaces (0 for an end not found)."""
    ends = pnic_ends(lab, switch_side=True)
    names = sorted({ns for pairs in ends.values() for ns, _ in pairs})
    stats: dict[tuple[str, str], int] = {}
    for ns, lines in ctx.run_per_ns(names, "-s -j link show").items():
        try:
            links = json.loads("".join(lines) or "[]")
        except ValueError:
            continue
        for link in links:
            s = link.get("stats64") or link.get("stats") or {}
            stats[(ns, link.get("ifname", ""))] = int(s.get("rx", {}).get("bytes", 0)) + \
                int(s.get("tx", {}).get("bytes", 0))
    return {pnic: sum(stats.get(end, 0) for end in pairs) for pnic, pairs in ends.items()}
