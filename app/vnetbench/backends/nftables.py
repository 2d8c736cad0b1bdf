"""nftables rulesets built from a router or firewall VM's ``Forwarding`` (SEMANTICS.md section 4, rule 6).

One compiler for every backend that forwards with nftables: the local lab loads these rulesets into a
firewall VM's namespace, the KVM backend into the firewall guest, so both filter exactly alike.

First matching rule wins, then the default policy. A stateful firewall accepts the replies of flows it let
through (``ct state established,related``) and drops TCP that does not start with a SYN, which is how a
real stateful firewall that sees only one direction of a flow behaves. Routed mode filters the ``inet``
forward hook; bridged mode the ``bridge`` forward hook, where ARP always passes (without it nothing could
find its neighbour, which is not what a transparent firewall does). The bridge family has no connection
tracking without br_netfilter, so there "stateful" means: the replies of allowed flows pass.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable, Mapping, Sequence

from ..model import VM, Action, Forwarding, Index, Proto, Rule, Topology
from ..model.dnat import dnat_rules
from ..model.families import addresses, link_local
from ..model.nat import leaves_by, snat_rules

TABLE = "vnb"

#: Resolves a rule's ``src``/``dst`` object id to the addresses it stands for; ``None`` when unknown.
Resolver = Callable[[str], list[str] | None]


class RuleError(ValueError):
    """A firewall rule that cannot be turned into nftables (an address that names nothing)."""

    pass


def _addresses(value: str, resolve: Resolver, what: str) -> list[str] | None:
    text = value.strip()
    if text.lower() in ("any", "*", ""):
        return None
    try:
        return [str(ipaddress.ip_network(text, strict=False))]
    except ValueError:
        pass
    found = resolve(text)
    if found is None:
        raise RuleError(f"{what} {value!r} is neither any, an IPv4 or IPv6 address or network, nor the id of an "
                        "object with addresses")
    if not found:
        raise RuleError(f"{what} {value!r} names an object without an address")
    return found


def _ports(port: int | str | None, what: str) -> str | None:
    if port is None or str(port).strip().lower() in ("", "any"):
        return None
    parts = [p.strip() for p in str(port).split(",") if p.strip()]
    for part in parts:
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()) or not 0 < int(lo) <= 65535 or (hi and not 0 < int(hi) <= 65535):
            raise RuleError(f"{what} {port!r} is not a port, a range (1000-2000) or a list (80,443)")
    return parts[0] if len(parts) == 1 else "{ " + ", ".join(parts) + " }"


def _set(values: list[str]) -> str:
    return values[0] if len(values) == 1 else "{ " + ", ".join(values) + " }"


def _of_family(values: list[str] | None, fam: int) -> list[str] | None:
    """A side's addresses of one family (``any`` stays None: it covers both)."""
    return None if values is None else [v for v in values if (":" in v) == (fam == 6)]


#: Per family: how nft names its addresses and its ICMP.
_ADDRESS_WORD = {4: "ip", 6: "ip6"}
_ICMP = {4: "icmp", 6: "ipv6-icmp", None: "{ icmp, ipv6-icmp }"}


def _match(rule: Rule, resolve: Resolver, where: str, reply: bool = False) -> list[str]:
    """The match parts of one rule, one per family it covers; ``reply`` matches the answers to it (addresses
    and ports swapped). A rule naming networks of one family matches no packet of the other (the finding of a
    rule set written for IPv4 only); one whose sides are ``any`` covers both families in one match."""
    src = _addresses(rule.src, resolve, f"{where} src")
    dst = _addresses(rule.dst, resolve, f"{where} dst")
    if reply:
        src, dst = dst, src
    fams: tuple[int | None, ...] = (None,) if src is None and dst is None else (4, 6)
    out = []
    for fam in fams:
        match = []
        if fam is not None:
            s, d = _of_family(src, fam), _of_family(dst, fam)
            if s == [] or d == []:
                continue
            match += [f"{_ADDRESS_WORD[fam]} {side} {_set(v)}" for side, v in (("saddr", s), ("daddr", d)) if v]
        ports = _ports(rule.port, f"{where} port")
        way = "sport" if reply else "dport"
        if rule.proto in (Proto.TCP, Proto.UDP):
            match.append(f"{rule.proto.value} {way} {ports}" if ports else f"meta l4proto {rule.proto.value}")
        elif rule.proto is Proto.ICMP:
            match.append(f"meta l4proto {_ICMP[fam]}")
        elif ports:
            match.append(f"meta l4proto {{ tcp, udp }} th {way} {ports}")
        if not match:
            match.append("meta protocol { ip, ip6 }")
        out.append(" ".join(match))
    return out


def rule_lines(rule: Rule, resolve: Resolver, where: str, can_reject: bool = True) -> list[str]:
    """One model rule as nft statements (``ip saddr ... tcp dport 22 drop``): a reject answers TCP with a
    reset and everything else with an ICMP port unreachable, as ``decide.symptom`` predicts."""
    comment = (rule.name or where).replace('"', "'")[:120]
    return [f'{match} {verdict} comment "{comment}"' for match in _match(rule, resolve, where)
            for verdict in refusal(rule.proto, rule.action, can_reject)]


def refusal(proto: Proto, action: Action, can_reject: bool = True) -> list[str]:
    """The verdict statements of an action for traffic of ``proto``: one each, but a reject of any protocol
    sends TCP a reset first and the rest an ICMP port unreachable. Without ``can_reject`` (the bridge family,
    whose reject needs the nft_reject_bridge module that many kernels lack) a reject is a drop."""
    if action is Action.ALLOW:
        return ["accept"]
    if action is not Action.REJECT or not can_reject:
        return ["drop"]
    if proto is Proto.TCP:
        return ["reject with tcp reset"]
    return ["reject"] if proto in (Proto.UDP, Proto.ICMP) else ["meta l4proto tcp reject with tcp reset", "reject"]


def design_resolver(design: Topology) -> Resolver:
    """Addresses of the object a rule names, of both families: a VM, vNIC, NIC or interface, a physical host,
    a host's VMs, or a portgroup/switch (the subnets of the vNICs on it)."""
    ix = Index(design)
    nics = [(vm, n) for vm in design.vms for n in vm.vnics]

    def ips(items: Iterable[object]) -> list[str]:
        out = []
        for item in items:
            for text in addresses(item):
                try:
                    if not link_local(text):      # a link-local address names a next hop, never a flow's end
                        out.append(str(ipaddress.ip_interface(text).ip))
                except ValueError:
                    continue
        return out

    def subnets(items: Iterable[object]) -> list[str]:
        out = set()
        for item in items:
            for text in addresses(item):
                try:
                    if "/" in text and not link_local(text):
                        out.add(str(ipaddress.ip_interface(text).network))
                except ValueError:
                    continue
        return sorted(out)

    def resolve(ref: str) -> list[str] | None:
        kind = ix.kind(ref)
        obj = ix.get(ref)
        if kind in ("vnic", "host_nic", "router_interface"):
            return ips([obj])
        if kind == "vm":
            return ips(obj.vnics)
        if kind == "physical_host":
            return ips(obj.nics)
        if kind in ("portgroup", "switch"):
            return subnets(n for _, n in nics if n.network == ref or ix.parent(n.network) is obj)
        if kind == "host":
            return ips([n for vm, n in nics if vm.host == ref])
        return None

    return resolve


def _policy(action: Action) -> str:
    """A base chain's policy: accept or drop (nft has no reject policy: ``chain_body`` ends with the reject)."""
    return "accept" if action is Action.ALLOW else "drop"


def chain_body(fw: Forwarding, resolve: Resolver, owner: str, conntrack: bool = True) -> list[str]:
    """The statements of one filter chain: state tracking, then the rules in order (the policy is separate).

    Without connection tracking (the bridge family here has none), a stateful firewall is approximated by
    accepting the replies of every allowed rule (addresses and ports swapped) before the rules themselves,
    and a reject is deployed as a drop (``refusal``).
    """
    body = []
    names = [f"{owner} rule {i}" + (f" {r.name!r}" if r.name else "") for i, r in enumerate(fw.rules, 1)]
    if fw.stateful and conntrack:
        body += ["ct state established,related accept", "ct state invalid drop",
                 "tcp flags & (syn | ack) != syn ct state new drop"]
    elif fw.stateful:
        body += [f'{match} accept comment "reply to {w}"' for r, w in zip(fw.rules, names)
                 if r.action is Action.ALLOW for match in _match(r, resolve, w, reply=True)]
    body += [line for r, w in zip(fw.rules, names) for line in rule_lines(r, resolve, w, conntrack)]
    if fw.default_policy is Action.REJECT and conntrack:
        body += [f'{verdict} comment "{owner} default reject"' for verdict in refusal(Proto.ANY, Action.REJECT)]
    return body


def ruleset(family: str, chains: Iterable[tuple[str, str, str, list[str]]]) -> str:
    """An ``nft -f`` script that replaces the lab's table atomically.

    ``chains``: (name, hook or "" for a regular chain, policy, statements).
    """
    lines = [f"table {family} {TABLE}", f"delete table {family} {TABLE}", f"table {family} {TABLE} {{"]
    for name, hook, policy, body in chains:
        lines.append(f"  chain {name} {{")
        if hook:
            lines.append(f"    type filter hook {hook} priority 0; policy {policy};")
        lines += [f"    {stmt}" for stmt in body]
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def routed_ruleset(fw: Forwarding, resolve: Resolver, owner: str) -> str:
    """A routed firewall VM's forward filter, from its rules and default policy."""
    return ruleset("inet", [("forward", "forward", _policy(fw.default_policy), chain_body(fw, resolve, owner))])


def bridged_ruleset(fw: Forwarding, resolve: Resolver, owner: str, blocked_by_policy: bool) -> str:
    """A transparent firewall's bridge filter; with ``blocked_by_policy`` nothing crosses it (SEMANTICS 4.4)."""
    if blocked_by_policy:
        return ruleset("bridge", [("forward", "forward", "drop", [])])
    body = ["ether type arp accept", *chain_body(fw, resolve, owner, conntrack=False)]
    return ruleset("bridge", [("forward", "forward", _policy(fw.default_policy), body)])


def snat_ruleset(rules: list[tuple[str, str, str | None]], dnat: Sequence[str] = ()) -> str:
    """A router's source NAT: each (sources, translated address, interface or None) in order, first match wins
    (a rule's ``accept`` ends the chain); and its destination NAT, ``dnat`` statements (``dnat_rule``) in
    prerouting; replies are translated back by connection tracking."""
    lines = "".join(f'    ip saddr {source}{f" oifname {chr(34)}{out}{chr(34)}" if out else ""} snat to {to}\n'
                    for source, to, out in rules)
    pre = "".join(f"    {rule}\n" for rule in dnat)
    return (f"table ip {TABLE}\ndelete table ip {TABLE}\ntable ip {TABLE} {{\n"
            + (f"  chain pre {{\n    type nat hook prerouting priority dstnat; policy accept;\n{pre}  }}\n"
               if dnat else "")
            + f"  chain post {{\n    type nat hook postrouting priority srcnat; policy accept;\n{lines}  }}\n}}\n")


def dnat_rule(address: str, proto: str, port: int | None, to: str, to_port: int | None) -> str:
    """One destination NAT statement: packets to ``address`` (of ``proto``, to ``port``) go to ``to``
    (``to_port``; none: the port they came to)."""
    match = f"ip daddr {address}"
    if port is not None:
        match += f" {proto} dport {port}"
    elif proto in ("tcp", "udp", "icmp"):
        match += f" meta l4proto {proto}"
    return f"{match} dnat to {to}" + (f":{to_port}" if to_port is not None else "")


def vm_nat_ruleset(vm: VM, ifnames: Mapping[str, str]) -> str | None:
    """A routed VM's SNAT and DNAT rules as one ``snat_ruleset`` (None: it has none). ``ifnames``: vNIC id ->
    the interface that vNIC is inside the VM, which a SNAT rule naming its way out matches; a rule naming a
    vNIC that has no interface there translates nothing, so it is left out."""
    snat, dnat = snat_rules(vm), dnat_rules(vm)
    if not snat and not dnat:
        return None
    spec: list[tuple[str, str, str | None]] = []
    for r in snat:
        out = next((ifnames[n.id] for n in vm.vnics if n.id in ifnames and leaves_by(vm, r.rule, n.id)), None)
        if r.rule.interface is None or out is not None:
            spec.append((str(r.source), str(r.to), out if r.rule.interface else None))
    return snat_ruleset(spec, [dnat_rule(str(r.address), str(r.rule.proto), r.rule.port, str(r.to), r.rule.to_port)
                               for r in dnat])


def nat_ruleset(outside: str, forwards: Sequence[tuple[str, int, str, int | None]] = ()) -> str:
    """A hosted NAT service: masquerade what leaves through ``outside``, let in only the replies and what its
    port forwards (proto, host port, guest address, guest port or None) send on to a guest."""
    pre = "".join(f'    iifname "{outside}" {proto} dport {port} dnat to {guest}'
                  + (f":{guest_port}" if guest_port is not None else "") + "\n"
                  for proto, port, guest, guest_port in forwards)
    return (f"table ip {TABLE}\ndelete table ip {TABLE}\ntable ip {TABLE} {{\n"
            + (f"  chain pre {{\n    type nat hook prerouting priority dstnat; policy accept;\n{pre}  }}\n"
               if forwards else "")
            + f'  chain post {{\n    type nat hook postrouting priority srcnat; policy accept;\n'
            f'    oifname "{outside}" masquerade\n  }}\n'
            f"  chain forward {{\n    type filter hook forward priority 0; policy accept;\n"
            f'    ct state established,related accept\n'
            + ("    ct status dnat accept\n" if forwards else "")
            + f'    iifname "{outside}" drop\n  }}\n}}\n')
