"""A teaming policy (load balancing, failure detection, notify switches, failback) as vSphere holds it: the plan
data vnetbench sends, the specs of standard and distributed portgroups and switches, and the policy read back.

vSphere's words: ``nicTeaming.policy`` (``loadbalance_srcid``, ``loadbalance_srcmac``, ``loadbalance_ip``,
``failover_explicit``, ``loadbalance_loadbased`` on a vDS only), ``failureCriteria.checkBeacon``,
``notifySwitches``, and ``rollingOrder``, which is failback turned round (true: a recovered uplink does not take
its traffic back). A vDS wraps each value in an inheritable policy (``StringPolicy``, ``BoolPolicy``).
"""

from __future__ import annotations

from typing import Any

from pyVmomi import vim
from vnetbench.model import FailureDetection, LoadBalancing, Switch, Teaming

POLICY = {LoadBalancing.PORT_ID: "loadbalance_srcid", LoadBalancing.MAC_HASH: "loadbalance_srcmac",
          LoadBalancing.IP_HASH: "loadbalance_ip", LoadBalancing.FAILOVER_ORDER: "failover_explicit",
          LoadBalancing.LOAD_BASED: "loadbalance_loadbased"}
BALANCING = {v: k for k, v in POLICY.items()}
DVS = vim.dvs.VmwareDistributedVirtualSwitch


def teaming_data(policy: Teaming | None) -> dict[str, Any] | None:
    """What a change sends of ``policy`` (None: leave the server's own)."""
    if policy is None:
        return None
    return {"policy": POLICY[policy.load_balancing], "beacon": policy.failure_detection is FailureDetection.BEACON,
            "notify": policy.notify_switches, "failback": policy.failback}


def teaming_of(data: dict[str, Any] | None) -> Teaming | None:
    """The model's policy of plan data (``teaming_data``), to compare with what the server holds."""
    if data is None:
        return None
    return Teaming(BALANCING[data["policy"]], FailureDetection.BEACON if data["beacon"] else FailureDetection.LINK_STATUS,
                   data["notify"], data["failback"])


def host_teaming(active: list[str] | None, standby: list[str] | None, data: dict[str, Any] | None) -> Any:
    """A standard switch's or portgroup's ``NicTeamingPolicy`` (None: nothing to set)."""
    if active is None and data is None:
        return None
    spec = vim.host.NetworkPolicy.NicTeamingPolicy()
    if active is not None:
        spec.nicOrder = vim.host.NetworkPolicy.NicOrderPolicy(activeNic=active, standbyNic=standby or [])
    if data is not None:
        spec.policy, spec.notifySwitches, spec.rollingOrder = data["policy"], data["notify"], not data["failback"]
        spec.failureCriteria = vim.host.NetworkPolicy.NicFailureCriteria(checkBeacon=data["beacon"])
    return spec


def dvs_teaming(data: dict[str, Any] | None, order: list[list[str]] | None = None) -> Any:
    """A distributed portgroup's or switch's ``VmwareUplinkPortTeamingPolicy``: the policy of ``data`` and the
    explicit uplink ``order`` ([active, standby] dvUplink or LAG names; [] the switch's again), each only when
    given (None: leave it)."""
    if data is None and order is None:
        return None
    spec = DVS.UplinkPortTeamingPolicy(inherited=False)
    if data is not None:
        spec.policy = vim.StringPolicy(inherited=False, value=data["policy"])
        spec.notifySwitches = vim.BoolPolicy(inherited=False, value=data["notify"])
        spec.rollingOrder = vim.BoolPolicy(inherited=False, value=not data["failback"])
        spec.failureCriteria = DVS.FailureCriteria(inherited=False,
                                                   checkBeacon=vim.BoolPolicy(inherited=False, value=data["beacon"]))
    if order == []:
        spec.uplinkPortOrder = DVS.UplinkPortOrderPolicy(inherited=True)
    elif order is not None:
        spec.uplinkPortOrder = DVS.UplinkPortOrderPolicy(inherited=False, activeUplinkPort=order[0],
                                                         standbyUplinkPort=order[1])
    return spec


def _value(field: Any) -> Any:
    return getattr(field, "value", field)     # a vDS's inheritable policy, or a standard switch's plain value


def read_teaming(policy: Any) -> Teaming | None:
    """The policy a ``NicTeamingPolicy`` or ``VmwareUplinkPortTeamingPolicy`` holds, or None when it names no
    load balancing (it inherits the switch's) or one vnetbench does not know."""
    balancing = BALANCING.get(_value(getattr(policy, "policy", None)))
    if balancing is None:
        return None
    beacon = _value(getattr(getattr(policy, "failureCriteria", None), "checkBeacon", None))
    notify, rolling = _value(getattr(policy, "notifySwitches", None)), _value(getattr(policy, "rollingOrder", None))
    return Teaming(balancing, FailureDetection.BEACON if beacon else FailureDetection.LINK_STATUS,
                   True if notify is None else bool(notify), not rolling)


def fold_teaming(sw: Switch, guess: bool = True) -> None:
    """Imported policies as a design says them: a portgroup repeating its switch's policy holds none of its own.
    When the server tells no standard switch's policy (vcsim keeps no standard switch spec; vnetbench sends the
    switch's policy to each portgroup), the one most portgroups hold (the first of equals) is taken for the
    switch's (``guess``; a distributed switch's default port policy is always what the server holds)."""
    policies = [pg.teaming for pg in sw.portgroups if pg.teaming is not None]
    if guess and sw.teaming is None and policies:
        sw.teaming = max(policies, key=policies.count)
    for pg in sw.portgroups:
        if pg.teaming == sw.teaming:
            pg.teaming = None
