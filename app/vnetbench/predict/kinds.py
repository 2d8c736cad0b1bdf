"""The kinds the compiled network names: what a routing device is, and what joins two segments in its graph.

String enums (``StrEnum``), so a kind still equals and prints as its word ("router", "uplink") wherever a file,
a table or older code compares the text.
"""

from __future__ import annotations

from enum import StrEnum


class DeviceKind(StrEnum):
    """What a routing ``Device`` is; the walk, the matrix and the explanation branch on it."""

    ROUTER = "router"           # a physical router or L3 switch, or a router VM
    FIREWALL = "firewall"       # a firewall VM that routes
    EDGE = "edge"               # an NSX edge VM
    DLR = "dlr"                 # an NSX distributed router: an instance in every member host's kernel
    NAT = "nat"                 # a hosted hypervisor's NAT service

    @property
    def appliance(self) -> bool:
        """A box of its own (router, firewall or edge): it is an address the walk can be sent to, forwards at its
        own rate and may keep connection state; a DLR and a hosted NAT service do none of that here."""
        return self in APPLIANCES

    @property
    def role(self) -> str:
        """The role its hop and its latency figure take: an edge routes like a router."""
        return "router" if self is DeviceKind.EDGE else self.value


#: The devices that are boxes of their own (``DeviceKind.appliance``).
APPLIANCES = frozenset({DeviceKind.ROUTER, DeviceKind.FIREWALL, DeviceKind.EDGE})

#: The devices that may hold static routes of their own (a hosted NAT service has none).
ROUTING_KINDS = APPLIANCES | {DeviceKind.DLR}


class EdgeKind(StrEnum):
    """What joins two segments in ``Network.graph`` (an edge's ``kind``)."""

    UPLINK = "uplink"           # a pNIC into a physical switch port
    TRUNK = "trunk"             # a cable between two physical switch ports
    BRIDGE = "bridge"           # a bridged firewall VM between its two legs
    PATCH = "patch"             # two virtual switches patched together on one KVM host
    EMBEDDED = "embedded"       # an SR-IOV virtual function's embedded switch to the pNIC's own segment
    OVERLAY = "overlay"         # an NSX segment's instance to its overlay hub through a transport pNIC
    TEAM = "team"               # a vSwitch's ports whose vNICs leave through different uplinks (one in-host group)
    PVLAN = "pvlan"             # a vDS's ports of one private VLAN on one host (one in-host group; roles apply)


#: Edges inside one host that join segments without a pNIC.
IN_HOST_EDGES = frozenset({EdgeKind.BRIDGE, EdgeKind.PATCH, EdgeKind.EMBEDDED})
