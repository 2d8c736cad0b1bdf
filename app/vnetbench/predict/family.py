"""Prediction per address family: one engine per family the design uses, each on the design as that family
sees it (``model.families.project``), and the matrix of an IPv6 design.

The walk reads IPv6 addresses as they are (Python ints of 128 bits). The vectorised matrix keeps addresses
in 64-bit columns, so an IPv6 design's matrix is computed on a relabelled copy: every IPv6 network and
address the design names is given an IPv4 one such that containment is kept (an address lies in a network,
and a network in another, exactly when their labels do), and with it every answer the matrix derives from
addresses: which subnet holds a destination, the longest route, which rule's network names a side. The last
octet of each address is kept too, for the IP hash of teaming. Explanations still walk the real design.
"""

from __future__ import annotations

import copy
import ipaddress
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..model.families import FAMILIES, Family, families_in, interfaces, project
from ..model.objects import Topology
from .engine import Engine
from .result import Prediction

if TYPE_CHECKING:
    from .matrix import Matrix

#: The label space: IPv4, whose matrix code is the one that exists.
_BITS = 32
#: What a rule's IPv4 network reads as in a relabelled IPv6 design: a name nothing has, so it names nobody.
_OTHER_FAMILY = "ipv4:"


class RelabelError(ValueError):
    """An IPv6 plan whose nesting does not fit the 32 bits the matrix labels with."""


def chosen(topology: Topology, wanted: int | None = None) -> list[Family]:
    """The families to predict: ``wanted`` (4 or 6), else every family the design uses."""
    if wanted is None:
        return families_in(topology)
    if wanted not in FAMILIES:
        raise ValueError(f"family {wanted} is not 4 or 6")
    return [wanted]  # type: ignore[list-item]


def predict(topology: Topology, src: str, dst: str, proto: str | None = None, port: int | None = None,
            wanted: int | None = None) -> dict[Family, Prediction]:
    """One pair's prediction per family (both families when the design uses both, unless ``wanted``)."""
    return {f: Engine(project(topology, f)).predict(src, dst, proto, port) for f in chosen(topology, wanted)}


def differs(answers: dict[Family, Prediction]) -> bool:
    """Whether the families' verdicts differ (what an admin most wants to know of a dual-stack pair)."""
    return len({str(p.verdict) for p in answers.values()}) > 1


def matrix(topology: Topology, fam: Family) -> Matrix:
    """Every pair's verdict in one family; an IPv6 one is computed on the relabelled design and explains
    its cells by walking the real one."""
    seen = project(topology, fam)
    if fam == 4:
        return Engine(seen).matrix()
    out = Engine(relabel(seen)).matrix()
    return replace(out, engine_walker=Engine(seen).walker)


# --- relabelling ---------------------------------------------------------------------------------------


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
_KINDS = {"ip": "interface", "gateway": "address", "via": "address", "prefix": "network", "src": "network",
          "dst": "network"}


def _fields(topology: Topology) -> Iterator[tuple[Any, str]]:
    """Every (object, field) of a projected design that holds an address, a network or a rule's match."""
    for part in interfaces(topology):
        for name in ("ip", "gateway"):
            if getattr(part, name, None):
                yield part, name
    for owner in [*topology.physical_routers, *topology.nsx.dlrs, *(vm.forwarding for vm in topology.vms)]:
        for route in owner.routes:
            yield route, "prefix"
            yield route, "via"
    for rule in [*topology.nsx.dfw.rules, *(r for vm in topology.vms for r in vm.forwarding.rules)]:
        yield rule, "src"
        yield rule, "dst"


def _parsed(text: str, kind: str) -> tuple[Any, Any] | None:
    """A field's text as (network, address): an interface has both, an address only the second, a network
    only the first; None when it is neither (a name, ``any``)."""
    value = text.strip().split("%", 1)[0]
    try:
        if kind == "interface":
            itf = ipaddress.ip_interface(value)
            return itf.network, itf.ip
        if kind == "address":
            return None, ipaddress.ip_address(value)
        return ipaddress.ip_network(value, strict=False), None
    except ValueError:
        return None


def _key(item: Any) -> tuple[int, int]:
    if isinstance(item, ipaddress.IPv6Network):
        return int(item.network_address), item.prefixlen
    return int(item), 128


def relabel(topology: Topology) -> Topology:
    """A projected IPv6 design with every IPv6 address and network written as its IPv4 label (see the module's
    docstring), and every IPv4 network a rule names as a name nobody has."""
    out = copy.deepcopy(topology)
    found = []
    for obj, name in _fields(out):
        parsed = _parsed(getattr(obj, name), _KINDS[name])
        if parsed is not None:
            found.append((obj, name, *parsed))
    items = {_key(x) for _, _, network, address in found for x in (network, address)
             if x is not None and x.version == 6}
    root = _nest(items)
    _place(root, 0, 0)
    labels = {(n.start, n.length): n.label for n in _walk(root)}
    for obj, name, network, address in found:
        if (network or address).version == 4:
            if name in ("src", "dst"):
                setattr(obj, name, _OTHER_FAMILY + getattr(obj, name))
            continue
        if network is not None:
            base, length = labels[_key(network)]
            net_text = f"{ipaddress.IPv4Address(base)}/{length}"
        if address is not None:
            at = str(ipaddress.IPv4Address(labels[_key(address)][0]))
        if network is not None and address is not None:
            setattr(obj, name, f"{at}/{length}")
        else:
            setattr(obj, name, at if network is None else net_text)
    return out
