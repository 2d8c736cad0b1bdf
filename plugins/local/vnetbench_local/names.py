"""Names of everything the lab creates.

Every namespace is called ``vnb<tag>-<role>-<object>``: ``vnb`` says it was meant to be made by vnetbench and
``<tag>`` (six hex digits of the design id's hash) which design it belongs to. A name is not proof of
ownership, though: anyone can make a namespace so named; ``marker`` is what the lab writes inside the ones
it makes, and its record lists them. Interfaces live only inside those namespaces; their names (at most 15
characters, the kernel's limit) are a role letter plus a hash of the model ids they stand for, so they stay
the same when unrelated objects are added or renamed and an unchanged design plans nothing.
"""

from __future__ import annotations

import ipaddress
import re

from vnetbench.backends.planning import digest

PREFIX = "vnb"
IFNAMSIZ = 15
_SAFE = re.compile(r"[^A-Za-z0-9_.]")
_IFNAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,14}$")
NS_PATTERN = re.compile(rf"^{PREFIX}([0-9a-f]{{6}})-")


def ns_prefix(tag: str) -> str:
    return f"{PREFIX}{tag}-"


def slug(obj_id: str) -> str:
    """A model id made safe for a namespace name (a file name under /run/netns)."""
    safe = _SAFE.sub("_", obj_id)
    return safe if len(safe) <= 24 else f"{safe[:16]}_{digest(obj_id)[:7]}"


def marker(tag: str, mark: str) -> str:
    """What a lab writes inside each namespace it makes (its loopback's alias): the design's tag and the
    lab's own random ``mark``, which only its record holds."""
    return f"vnetbench:{tag}:{mark}"


def ns_name(tag: str, role: str, *obj_ids: str) -> str:
    return ns_prefix(tag) + "-".join([role, *(slug(i) for i in obj_ids)])


def ifname(role: str, *parts: object) -> str:
    """A stable interface name: one role letter and ten hex digits of the parts it stands for."""
    return role + digest(*parts)[:10]


def pvlan_bridge_name(switch_id: str, primary: int) -> str:
    """The one bridge of private VLAN ``primary`` on a host's instance of switch ``switch_id``, a vDS or an OVS
    switch (``desired_pvlan``)."""
    return ifname("b", switch_id, "pvlan", primary)


def guest_ifname(name: str, index: int, taken: set[str]) -> str:
    """The vNIC's own name (eth0) inside the VM's namespace when the kernel accepts it, else ethN."""
    if _IFNAME.match(name) and name not in taken and name != "lo":
        return name
    candidate = f"eth{index}"
    while candidate in taken:
        candidate += "x"
    return candidate


def mac_for(*parts: object) -> str:
    """A locally administered unicast MAC, stable for the same parts."""
    h = digest(*parts)
    return "02:" + ":".join(h[i:i + 2] for i in range(0, 10, 2))


def link_local_for(*parts: object) -> str:
    """An IPv6 link-local ``address/64`` (fe80::/64 and 64 bits of the parts' hash), stable for the same parts."""
    h = digest(*parts)[:16]
    return f"{ipaddress.IPv6Address(int('fe80' + '0' * 12 + h, 16))}/64"
