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
from dataclasses import dataclass
from typing import Any

from ..model.families import clone_addressing, interfaces
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


def relabel(topology: Topology) -> Topology:
    """A projected IPv6 design with every IPv6 address and network written as its IPv4 label (see the module's
    docstring), and every IPv4 network a rule names as a name nobody has."""
    out = clone_addressing(topology)
    found = []
    for obj, name in _fields(out):
        parsed = _parsed(getattr(obj, name), _KINDS[name])
        if parsed is not None:
            found.append((obj, name, *parsed))
    items = {x for _, _, fam, network, address in found for x in (network, address) if x is not None and fam == 6}
    root = _nest(items)
    _place(root, 0, 0)
    labels = {(n.start, n.length): n.label for n in _walk(root)}
    for obj, name, fam, network, address in found:
        if fam == 4:
            if name in ("src", "dst"):
                setattr(obj, name, _OTHER_FAMILY + getattr(obj, name))
            continue
        if network is not None:
            base, length = labels[network]
            net_text = f"{ipaddress.IPv4Address(base)}/{length}"
        if address is not None:
            at = str(ipaddress.IPv4Address(labels[address][0]))
        if network is not None and address is not None:
            setattr(obj, name, f"{at}/{length}")
        else:
            setattr(obj, name, at if network is None else net_text)
    return out
