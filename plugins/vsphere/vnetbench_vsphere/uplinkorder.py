"""A distributed switch's uplinks by name: which pNIC of each member host is on which dvUplink, and a
distributed portgroup's explicit uplink order (``uplinkPortOrder``: active and standby dvUplinks, or a LAG).

A design orders pNICs; vSphere orders the switch's uplinks, named once for every host. vnetbench names a
switch's uplinks ``Uplink 1`` .. ``Uplink N`` (as the vSphere Client does) and puts each member's pNICs that are
in no LAG on them in the design's order: the n-th on ``Uplink n`` (vCenter fills the uplink ports in the order of
a member's ``pnicSpec``). A portgroup's order of pNICs is therefore one order of uplinks, the same on every
host, and import turns it back the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vnetbench.model import Switch, Uplink

#: How vnetbench names the n-th uplink of a distributed switch it creates.
UPLINK = "Uplink {}"

HostOf = Callable[[str], str | None]


def lag_pnic_ids(sw: Switch) -> set[str]:
    return {p for lag in sw.lags for p in lag.pnics}


def standalone(sw: Switch, host_of: HostOf) -> dict[str | None, list[str]]:
    """Member host -> its pNICs (ids) on the switch's standalone uplinks, in the design's order."""
    in_lags = lag_pnic_ids(sw)
    out: dict[str | None, list[str]] = {}
    for u in sw.uplinks:
        if u.pnic not in in_lags:
            out.setdefault(host_of(u.pnic), []).append(u.pnic)
    return out


def uplink_names(sw: Switch, host_of: HostOf) -> list[str]:
    """The switch's uplinks: as many as its member with the most standalone pNICs has (at least one)."""
    most = max((len(p) for p in standalone(sw, host_of).values()), default=0)
    return [UPLINK.format(n) for n in range(1, max(most, 1) + 1)]


def portgroup_order(sw: Switch, uplinks: list[Uplink], host_of: HostOf) -> tuple[list[str], list[str]] | str:
    """A portgroup's order of pNICs as dvUplink names (active, standby), or why it cannot be one: vSphere holds
    one order for every host, so each host's pNICs must keep the same order of uplinks."""
    name = {p: UPLINK.format(n) for pnics in standalone(sw, host_of).values() for n, p in enumerate(pnics, 1)}
    order: dict[str, bool] = {}                     # uplink -> standby, in the order first met
    per_host: dict[str | None, list[tuple[str, bool]]] = {}
    for u in uplinks:
        if u.pnic not in name:
            return f"its uplink order names {u.pnic}, which is no standalone uplink of {sw.name} (a LAG member " \
                   "or no uplink of the switch)"
        order.setdefault(name[u.pnic], u.standby)
        per_host.setdefault(host_of(u.pnic), []).append((name[u.pnic], u.standby))
    for host, seen in per_host.items():
        if seen != [(n, s) for n, s in order.items() if n in {x for x, _ in seen}]:
            return f"its uplink order puts the uplinks of {host} in another order than those of the other hosts; " \
                   "a distributed portgroup has one uplink order for every host"
    return [n for n, s in order.items() if not s], [n for n, s in order.items() if s]


def read_order(policy: Any) -> tuple[list[str], list[str]] | None:
    """The explicit uplink order a ``VmwareUplinkPortTeamingPolicy`` holds (None: it inherits the switch's)."""
    order = getattr(policy, "uplinkPortOrder", None)
    if order is None or getattr(order, "inherited", False) or not (order.activeUplinkPort or order.standbyUplinkPort):
        return None
    return list(order.activeUplinkPort or []), list(order.standbyUplinkPort or [])


def pnics_of(order: tuple[list[str], list[str]], names: list[str],
             members: dict[str, list[str]]) -> list[tuple[str, str, bool]]:
    """An order of dvUplinks as (host, pNIC device, standby) for every member whose standalone pNICs (in port
    order) vCenter reports; uplinks no host has a pNIC on are left out."""
    active, standby = order
    out = []
    for host, pnics in members.items():
        for uplink in active + standby:
            n = names.index(uplink) if uplink in names else -1
            if 0 <= n < len(pnics):
                out.append((host, pnics[n], uplink in standby))
    return out
