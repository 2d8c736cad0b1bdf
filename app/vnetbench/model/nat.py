"""Source NAT on router and edge VMs as the model holds it (SEMANTICS.md section 9): which rule translates a
packet, and which rules overlap. Prediction, validation, the lint and the lab read SNAT rules through here."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from .objects import VM, Snat, Topology
from .routing import routes_vm


@dataclass(frozen=True)
class SnatRule:
    """One parsed SNAT rule of a VM: its place in the list, sources, translated address and interface."""

    index: int
    rule: Snat
    source: ipaddress.IPv4Network
    to: ipaddress.IPv4Address

    def describe(self, owner: str) -> str:
        """The translation in words, for a path's explanation."""
        which = f"SNAT rule {self.rule.name}" if self.rule.name else f"its SNAT rule {self.index + 1}"
        return f"{owner} translates the source address to {self.to} ({which}, for {self.source})"


def snat_rules(vm: VM) -> list[SnatRule]:
    """A routed VM's SNAT rules that parse, in order (validation reports the others)."""
    if not routes_vm(vm):
        return []
    out = []
    for i, rule in enumerate(vm.forwarding.snat):
        try:
            out.append(SnatRule(i, rule, ipaddress.IPv4Network(rule.source.strip(), strict=False),
                                ipaddress.IPv4Address(rule.to.strip())))
        except ValueError:
            continue
    return out


def leaves_by(vm: VM, rule: Snat, nic_id: str) -> bool:
    """Whether a packet leaving by this vNIC is one the rule translates (no interface named: any)."""
    if rule.interface is None:
        return True
    return any(n.id == nic_id and rule.interface in (n.id, n.name) for n in vm.vnics)


def translation(vm: VM, source: ipaddress.IPv4Address, nic_id: str) -> SnatRule | None:
    """The first SNAT rule of ``vm`` that translates a packet from ``source`` leaving by ``nic_id``."""
    return next((r for r in snat_rules(vm) if source in r.source and leaves_by(vm, r.rule, nic_id)), None)


def overlaps(topo: Topology) -> list[tuple[VM, SnatRule, VM, SnatRule, str]]:
    """Pairs of SNAT rules that overlap, with why: on one VM, a later rule whose sources an earlier one holds
    (on the same way out) never translates them; on two VMs, one translated address claimed by both, so
    replies cannot tell which NAT they belong to."""
    out = []
    rules = [(vm, r) for vm in topo.vms for r in snat_rules(vm)]
    for i, (vm_a, a) in enumerate(rules):
        for vm_b, b in rules[i + 1:]:
            if vm_a is vm_b:
                same_way = a.rule.interface is None or b.rule.interface in (None, a.rule.interface)
                if same_way and b.source.subnet_of(a.source):
                    out.append((vm_a, a, vm_b, b, f"{a.source} of the earlier rule holds {b.source}, so the later "
                                "rule never translates anything"))
                elif same_way and a.source.overlaps(b.source):
                    out.append((vm_a, a, vm_b, b, f"{a.source} and {b.source} overlap, so the first listed "
                                "translates the sources both hold"))
            elif a.to == b.to:
                out.append((vm_a, a, vm_b, b, f"both translate to {a.to}, so replies to it cannot be told apart"))
    return out
