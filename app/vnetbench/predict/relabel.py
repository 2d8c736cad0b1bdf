"""An IPv6 design relabelled into IPv4 for the vectorised matrix, whose address columns are 64-bit integers.

Every IPv6 network and address the design names is given an IPv4 label such that containment is kept (an
address lies in a network, and a network in another, exactly when their labels do), and with it every answer
the matrix derives from addresses: which subnet holds a destination, the longest route, which rule's network
names a side. The last octet of each address is kept too, for the IP hash of teaming. The walk reads the
real IPv6 design (Python ints hold 128 bits); the matrix's cells are explained by walking it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from ..model.families import Clone, interfaces
from ..model.objects import Topology

#: The label space: IPv4, whose matrix code is the one that exists.
_BITS = 32
#: What a rule's IPv4 network reads as in a relabelled IPv6 design: a name nothing has, so it names nobody.
_OTHER_FAMILY = "ipv4:"


class RelabelError(ValueError):
    """An IPv6 plan whose nesting does not fit the 32 bits the matrix labels with."""


@dataclass
class _Node:
    start: int
    length: int
    children: list[_Node]
    label: tuple[int, int] = (0, 0)


def _nest(items: set[tuple[int, int]]) -> _Node:
    """The networks and addresses (start, prefix length) as a tree by containment, under ::/0."""
    root = _Node(0, 0, [])
    stack = [root]
    for start, length in sorted(items, key=lambda n: (n[0], n[1])):
        if (start, length) == (0, 0):
            continue
        node = _Node(start, length, [])
        while stack[-1] is not root and not _holds(stack[-1], start):
            stack.pop()
        stack[-1].children.append(node)
        stack.append(node)
    return root


def _holds(node: _Node, start: int) -> bool:
    return start >> (128 - node.length) == node.start >> (128 - node.length) if node.length else True


def _place(node: _Node, base: int, length: int) -> None:
    """Give ``node`` the label base/length and its children slots 1..k inside it (never the first or the last,
    which IPv4 keeps for the network and broadcast addresses); an address keeps its last octet."""
    node.label = (base, length)
    if not node.children:
        return
    width = (len(node.children) + 1).bit_length()
    low = 8 if any(c.length == 128 for c in node.children) else 0
    if length + width + low > _BITS:
        raise RelabelError(f"the IPv6 plan nests too many networks under {_text(node)} for the matrix "
                           "(it labels with 32 bits)")
    for slot, child in enumerate(node.children, start=1):
        child_base = base | (slot << (_BITS - length - width))
        if child.length == 128:
            child.label = (child_base | (child.start & 0xFF), _BITS)
        else:
            _place(child, child_base, length + width)


def _text(node: _Node) -> str:
    return str(ipaddress.IPv6Network((node.start, node.length)))


def _walk(node: _Node) -> Iterator[_Node]:
    yield node
    for child in node.children:
        yield from _walk(child)


#: What each field holds: an interface (``address/prefix``), an address, or a network (a rule's match).
_KINDS = {"ip": "interface", "host_address": "interface", "gateway": "address", "nat_gateway": "address", "via": "address", "prefix": "network", "src": "network",
          "dst": "network"}


def _fields(topology: Topology) -> Iterator[tuple[Any, str]]:
    """Every (object, field) of a projected design that holds an address, a network or a rule's match."""
    for part in [*interfaces(topology), *topology.switches]:
        for name in ("ip", "gateway", "host_address", "nat_gateway"):
            if getattr(part, name, None):
                yield part, name
    owners: list[Any] = [*topology.physical_routers, *topology.nsx.dlrs, *(vm.forwarding for vm in topology.vms)]
    for owner in owners:
        for route in owner.routes:
            yield route, "prefix"
            yield route, "via"
    for rule in [*topology.nsx.dfw.rules, *(r for vm in topology.vms for r in vm.forwarding.rules)]:
        yield rule, "src"
        yield rule, "dst"


def _parsed(text: str, kind: str) -> tuple[int, tuple[int, int] | None, tuple[int, int] | None] | None:
    """A field's text as (family, network, address), each of the last two (start, prefix length) as
    ``_nest`` takes them: an interface has both, an address only the second, a network only the first; None
    when it is neither (a name, ``any``)."""
    value, _, prefix = text.strip().split("%", 1)[0].partition("/")
    try:
        packed = socket.inet_pton(socket.AF_INET6 if ":" in value else socket.AF_INET, value)
    except (OSError, ValueError):
        return None
    bits = 8 * len(packed)
    if kind == "address":
        length = bits
    elif not prefix:
        length = bits
    elif prefix.isdigit() and int(prefix) <= bits:
        length = int(prefix)
    else:
        return None
    number = int.from_bytes(packed, "big")
    start = number >> (bits - length) << (bits - length)
    fam = 6 if bits == 128 else 4
    if kind == "interface":
        return fam, (start, length), (number, bits)
    if kind == "address":
        return fam, None, (number, bits)
    return fam, (start, length), None


class Relabelling:
    """A projected IPv6 design relabelled (see the module's docstring), kept current through the design's
    edits: the labels stay as they are while an edit names no IPv6 network or address they lack, so the
    matrix built on the copy is updated like an IPv4 one's instead of rebuilt (``follow``, ``sync_rules``)."""

    def __init__(self, topology: Topology) -> None:
        self.clone = Clone(topology)
        self.topology = self.clone.topology
        found = []
        for obj, name in _fields(self.topology):
            parsed = _parsed(getattr(obj, name), _KINDS[name])
            if parsed is not None:
                found.append((obj, name, *parsed))
        items = {x for _, _, fam, network, address in found for x in (network, address) if x is not None and fam == 6}
        root = _nest(items)
        _place(root, 0, 0)
        self.labels = {(n.start, n.length): n.label for n in _walk(root)}
        for obj, name, fam, network, address in found:
            text = self._text(getattr(obj, name), name, fam, network, address)
            assert text is not None, "every IPv6 item the design names has its label"
            setattr(obj, name, text)
        # the design's rules (by id, with the rule itself: an id alone may be reused) -> their relabelled copies
        self._rules: dict[int, tuple[Any, Any]] = {}
        for source, copy in self._rule_lists(topology, self.topology):
            self._rules.update((id(r), (r, c)) for r, c in zip(source, copy))

    def _text(self, text: str, name: str, fam: int, network: tuple[int, int] | None,
              address: tuple[int, int] | None) -> str | None:
        """A field's text relabelled; None when it names an IPv6 network or address without a label."""
        if fam == 4:
            return _OTHER_FAMILY + text if name in ("src", "dst") else text
        if (network is not None and network not in self.labels) or (address is not None and address not in self.labels):
            return None
        if network is not None:
            base, length = self.labels[network]
            net_text = f"{ipaddress.IPv4Address(base)}/{length}"
        if address is not None:
            at = str(ipaddress.IPv4Address(self.labels[address][0]))
        if network is not None and address is not None:
            return f"{at}/{length}"
        return at if network is None else net_text

    def rule(self, rule: Any) -> Any | None:
        """A relabelled copy of a rule; None when it names an IPv6 network without a label (a new relabelling)."""
        out = replace(rule)
        for name in ("src", "dst"):
            text = getattr(rule, name)
            parsed = _parsed(text, _KINDS[name]) if isinstance(text, str) else None
            if parsed is not None:
                relabelled = self._text(text, name, *parsed)
                if relabelled is None:
                    return None
                setattr(out, name, relabelled)
        return out

    def follow(self, obj: Any, field: str) -> bool:
        """Make a field edit of the projected design on the copy too; False when the labels cannot follow
        (an address or a route's network: the caller relabels anew)."""
        known = self._rules.get(id(obj))
        if known is not None and known[0] is obj:
            relabelled = self.rule(obj)
            if relabelled is None:
                return False
            setattr(known[1], field, getattr(relabelled, field))
            return True
        copied = self.clone.copies.get(id(obj))
        if copied is None:
            return True     # shared with the projection: the edit is there already
        if field in _KINDS or field in ("addresses", "gateway6", "interface", "source", "port_forwards", "dnat"):
            return False
        setattr(copied, field, getattr(obj, field))
        return True

    def sync_rules(self, owner: Any) -> list | None:
        """The copy of a rule list (a firewall's or the DFW's) made equal to the projection's ``owner.rules``
        after a rule was added or removed, reusing the rules already relabelled; the copy's list, or None when a
        new rule names an IPv6 network without a label."""
        mine = self.clone.copies.get(id(owner))
        if mine is None:
            return None
        rules = []
        for r in owner.rules:
            known = self._rules.get(id(r))
            if known is None or known[0] is not r:
                relabelled = self.rule(r)
                if relabelled is None:
                    return None
                known = self._rules[id(r)] = (r, relabelled)
            rules.append(known[1])
        mine.rules[:] = rules     # in place: the compiled network's bridges and DFW read this list
        return mine.rules

    def relabelled_rules(self, rules: list) -> list | None:
        """These rules of the design as the copy holds them (for the matrix's rule edits); None when one names
        an IPv6 network without a label."""
        out = []
        for r in rules:
            known = self._rules.get(id(r))
            relabelled = known[1] if known is not None and known[0] is r else self.rule(r)
            if relabelled is None:
                return None
            out.append(relabelled)
        return out

    @staticmethod
    def _rule_lists(source: Topology, copy: Topology) -> Iterator[tuple[list, list]]:
        yield source.nsx.dfw.rules, copy.nsx.dfw.rules
        for vm, twin in zip(source.vms, copy.vms):
            yield vm.forwarding.rules, twin.forwarding.rules


def relabel(topology: Topology) -> Topology:
    """A projected IPv6 design with every IPv6 address and network written as its IPv4 label (see the module's
    docstring), and every IPv4 network a rule names as a name nobody has."""
    return Relabelling(topology).topology
