"""Destination NAT (port forwarding) on router and edge VMs as the model holds it (SEMANTICS.md section 9):
which rule forwards a flow, and which rules overlap. Prediction, validation, the lint and the lab read DNAT rules
through here.

A flow names the port its destination listens on (the inside port): a rule forwards it when its protocol
matches and its translated port (``to_port``, else ``port``) is that port; the sender connects to the rule's
outside address and port.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from .objects import VM, Dnat, Proto, Switch, Topology
from .routing import routes_vm


@dataclass(frozen=True)
class DnatRule:
    """One parsed DNAT rule of a VM (or a hosted NAT's port forward, ``kind``): its place in the list, outside
    address, inside address and ports."""

    index: int
    rule: Dnat
    address: ipaddress.IPv4Address
    to: ipaddress.IPv4Address
    kind: str = "DNAT rule"

    @property
    def inside_port(self) -> int | None:
        """The port the inside server listens on (None: the port the sender chose)."""
        return self.rule.to_port if self.rule.to_port is not None else self.rule.port

    def label(self) -> str:
        """The rule as an explanation names it."""
        return f"{self.kind} {self.rule.name}" if self.rule.name else f"its {self.kind} {self.index + 1}"

    def outside(self, port: int | None) -> str:
        """The address (and port) a sender connects to for a flow to ``port`` inside."""
        out = self.rule.port if self.rule.port is not None else port
        return f"{self.address}" + (f" port {out}" if out is not None else "")

    def what(self) -> str:
        """What the rule forwards, in words: ``tcp port 8080``, ``every protocol``."""
        if self.rule.proto is Proto.ANY and self.rule.port is None:
            return "every protocol"
        return str(self.rule.proto) + (f" port {self.rule.port}" if self.rule.port is not None else "")

    def describe(self, owner: str, port: int | None) -> str:
        """The translation in words, for a path's explanation."""
        inside = f"{self.to}" + (f" port {self.inside_port or port}" if (self.inside_port or port) else "")
        return f"{owner} translates the destination {self.outside(port)} to {inside} ({self.label()})"


def dnat_rules(vm: VM) -> list[DnatRule]:
    """A routed VM's DNAT rules that parse, in order (validation reports the others)."""
    if not routes_vm(vm):
        return []
    out = []
    for i, rule in enumerate(vm.forwarding.dnat):
        try:
            out.append(DnatRule(i, rule, ipaddress.IPv4Address(rule.address.strip()),
                                ipaddress.IPv4Address(rule.to.strip())))
        except ValueError:
            continue
    return out


def port_forwards(sw: Switch, outside: ipaddress.IPv4Address) -> list[DnatRule]:
    """A hosted NAT's port forwards that parse, as DNAT rules at the host's own LAN address ``outside``."""
    out = []
    for i, pf in enumerate(sw.port_forwards):
        try:
            to = ipaddress.IPv4Address(pf.guest.strip())
        except ValueError:
            continue
        rule = Dnat(str(outside), pf.guest, pf.proto, pf.host_port, pf.guest_port, pf.name)
        out.append(DnatRule(i, rule, outside, to, "port forward"))
    return out


def forwards(rule: DnatRule, proto: str | None, port: int | None) -> bool:
    """Whether the rule forwards a flow of ``proto`` to the inside ``port`` (a flow without a protocol: only
    a rule for every protocol)."""
    if rule.rule.proto is not Proto.ANY and str(rule.rule.proto) != proto:
        return False
    return rule.inside_port is None or rule.inside_port == port


def publishing(topo: Topology, inside: ipaddress.IPv4Address) -> list[tuple[VM, DnatRule]]:
    """The DNAT rules of the design that translate to ``inside``, VM by VM in order."""
    return [(vm, r) for vm in topo.vms for r in dnat_rules(vm) if r.to == inside]


def overlaps(topo: Topology) -> list[tuple[VM, DnatRule, DnatRule, str]]:
    """Pairs of one VM's DNAT rules where the later never forwards: an earlier rule takes the same outside
    address, a protocol that covers it and every port or the same one."""
    out = []
    for vm in topo.vms:
        rules = dnat_rules(vm)
        for i, a in enumerate(rules):
            for b in rules[i + 1:]:
                same_proto = a.rule.proto is Proto.ANY or a.rule.proto == b.rule.proto
                same_port = a.rule.port is None or a.rule.port == b.rule.port
                if a.address == b.address and same_proto and same_port:
                    out.append((vm, a, b, f"the earlier rule already forwards {a.what()} to {a.address}, so the "
                                "later one never applies"))
    return out
