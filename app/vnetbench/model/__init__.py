"""The design model: objects, identities, the file format and validation. No Qt here."""

from .codec import FormatError
from .document import Change, Document
from .fileformat import TopologyFileError, dumps, load, loads, save
from .index import Index
from .objects import (FORMAT_VERSION, MULTI_HOST_SWITCHES, PORTGROUP_SWITCHES, HostKind, SwitchKind, Encapsulation,
                     MacvtapMode, NicType, VmRole, ForwardMode, Action, Proto, PortMode, PNic, Host, Uplink, Security,
                     Portgroup, Switch, VNic, Rule, Forwarding, VM, Port, PhysicalSwitch, RouterInterface, Route,
                     PhysicalRouter, HostNic, PhysicalHost, Link, DlrInterface, Dlr, DfwRule, Dfw, Nsx, Place, Note,
                     Layout, Topology, LoadBalancing, FailureDetection, LacpMode, LagHash, PvlanType, Teaming, Lag,
                     Pvlan, BridgeVlans, PortChannel, Tep, Snat, Dnat, PortForward)

__all__ = ["Change", "Document", "FormatError", "Index", "TopologyFileError", "dumps", "load", "loads", "save",
           "FORMAT_VERSION", "MULTI_HOST_SWITCHES", "PORTGROUP_SWITCHES", "HostKind", "SwitchKind",
           "Encapsulation", "MacvtapMode", "NicType", "VmRole", "ForwardMode", "Action", "Proto",
           "PortMode", "PNic", "Host", "Uplink", "Security", "Portgroup", "Switch", "VNic", "Rule",
           "Forwarding", "VM", "Port", "PhysicalSwitch", "RouterInterface", "Route", "PhysicalRouter",
           "HostNic", "PhysicalHost", "Link", "DlrInterface", "Dlr", "DfwRule", "Dfw", "Nsx", "Place",
           "Note", "Layout", "Topology", "LoadBalancing", "FailureDetection", "LacpMode", "LagHash", "PvlanType",
           "Teaming", "Lag", "Pvlan", "BridgeVlans", "PortChannel", "Tep", "Snat", "Dnat", "PortForward"]
