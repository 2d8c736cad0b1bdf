"""LACP link aggregation groups of a distributed switch as vSphere holds them (enhanced LACP).

A vDS holds its LAGs in ``config.lacpGroupConfig`` (``VMwareDvsLacpGroupConfig``: name, ``mode`` active or
passive, ``loadbalanceAlgorithm``, ``uplinkNum`` ports, and the keys of those ports), changed with
``UpdateDVSLacpGroupConfig_Task`` (``VMwareDvsLacpGroupSpec`` entries, operation add / edit / remove) on a
switch whose ``lacpApiVersion`` is ``multipleLag``. A member host's pNIC joins a LAG by sitting on one of its
ports (the ``uplinkPortKey`` of its ``pnicSpec``), and a portgroup sends through a LAG by naming it as its only
active uplink.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyVmomi import vim
from vnetbench.model import LacpMode, LagHash

DVS = vim.dvs.VmwareDistributedVirtualSwitch
#: The enhanced LACP API, the one that holds several LAGs per switch (``singleLag`` is the old one-LAG switch).
MULTIPLE_LAG = "multipleLag"
#: What vnetbench sends for each hash; vSphere's default is the one with ports and VLAN.
ALGORITHM = {LagHash.SRC_DST_IP: "srcDestIp", LagHash.SRC_DST_IP_PORT_VLAN: "srcDestIpTcpUdpPortVlan"}
HASH = {v: k for k, v in ALGORITHM.items()}


@dataclass
class LagInfo:
    """A LAG the server holds."""

    key: str
    name: str
    mode: str
    algorithm: str
    uplinks: int
    ports: list[str] = field(default_factory=list)


def read_lags(groups: Any) -> list[LagInfo]:
    """A switch's ``lacpGroupConfig``."""
    return [LagInfo(str(g.key or ""), str(g.name), str(g.mode or ""), str(g.loadbalanceAlgorithm or ""),
                     int(g.uplinkNum or 0), [str(k) for k in g.uplinkPortKey or []]) for g in groups or []]


def lag_hash(algorithm: str) -> tuple[LagHash, bool]:
    """The model's hash of a vSphere algorithm, and whether it is exact: an algorithm that hashes ports (or the
    virtual port) lets each flow take another member, one that hashes only addresses (MAC, IP, VLAN) fixes
    the member per pair, as the model's two hashes do."""
    if algorithm in HASH:
        return HASH[algorithm], True
    ports = "Port" in algorithm
    return (LagHash.SRC_DST_IP_PORT_VLAN if ports else LagHash.SRC_DST_IP), False


def lag_data(name: str, mode: LacpMode, hash_: LagHash, uplinks: int) -> dict[str, Any]:
    """A designed LAG as plan data (what is compared with ``LagInfo`` and sent)."""
    return {"name": name, "mode": mode.value, "algorithm": ALGORITHM[hash_], "uplinks": uplinks}


def held_data(lag: LagInfo) -> dict[str, Any]:
    return {"name": lag.name, "mode": lag.mode, "algorithm": lag.algorithm, "uplinks": lag.uplinks}


def lag_specs(want: list[dict[str, Any]], have: list[LagInfo]) -> list[Any]:
    """The ``VMwareDvsLacpGroupSpec`` entries that turn the LAGs ``have`` into ``want`` (by name): removals, edits
    (an edit names the held LAG's key), additions."""
    held = {lag.name: lag for lag in have}
    names = {w["name"] for w in want}

    def spec(op: str, w: dict[str, Any], key: str | None = None) -> Any:
        return DVS.LacpGroupSpec(operation=op, lacpGroupConfig=DVS.LacpGroupConfig(
            key=key, name=w["name"], mode=w["mode"], loadbalanceAlgorithm=w["algorithm"], uplinkNum=w["uplinks"]))

    out = [DVS.LacpGroupSpec(operation="remove", lacpGroupConfig=DVS.LacpGroupConfig(key=lag.key, name=lag.name))
           for lag in have if lag.name not in names]
    out += [spec("edit", w, held[w["name"]].key) for w in want
            if w["name"] in held and held_data(held[w["name"]]) != w]
    out += [spec("add", w) for w in want if w["name"] not in held]
    return out


def lag_ports(lag_pnics: dict[str, list[str]], held: list[LagInfo]) -> dict[str, str]:
    """pNIC -> the LAG port it goes on (the n-th of a host's pNICs in a LAG on its n-th port), for the LAGs the
    server holds now."""
    ports = {lag.name: lag.ports for lag in held}
    out = {}
    for name, pnics in lag_pnics.items():
        for n, pnic in enumerate(pnics):
            if n < len(ports.get(name, [])):
                out[pnic] = ports[name][n]
    return out
