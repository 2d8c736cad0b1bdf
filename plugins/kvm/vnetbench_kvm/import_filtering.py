"""Import of the VLAN-filtering Linux bridges the KVM backend deployed (issue 23).

The deploy realises such a bridge as an Open vSwitch libvirt network (``desired_fabric``), so libvirt alone would
give it back as a plain OVS switch with ``bv-*`` portgroups. It is recognised by what the deploy wrote, never by a
name alone: the network carries vnetbench's mark for an ``ovs/`` want of its own name, and every portgroup is a
``bv-`` group whose name is the digest of the very ``<vlan>`` it holds (``FabricParts.filtering_group``). Each
guest port's ``bridge_vlans`` are read back from that ``<vlan>``: its tags are the VLANs it carries, the native
tag its PVID, ``nativeMode='untagged'`` the PVID sent untagged.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from vnetbench.model import BridgeVlans
from vnetbench.model.vlan import VlanList, format_ranges, parse_ranges

from .desired_fabric import FabricParts, filtering_port
from .xml import read_mark


def bridge_vlans(vlan: ET.Element) -> BridgeVlans | None:
    """A port's ``bridge_vlans`` from libvirt's ``<vlan>`` (an access tag: that VLAN, PVID, untagged), or None
    when it names no VLAN."""
    tags = [t for t in vlan.findall("tag") if t.get("id", "").isdigit() and 1 <= int(t.get("id", "0")) <= 4094]
    if not tags:
        return None
    carried = VlanList.read(format_ranges(parse_ranges(",".join(t.get("id", "") for t in tags))))
    if vlan.get("trunk") != "yes" and len(tags) == 1:
        return BridgeVlans(carried, int(tags[0].get("id", "")), carried)
    native = next((t for t in tags if t.get("nativeMode")), None)
    if native is None:
        return BridgeVlans(carried, None, VlanList.read(""))
    pvid = int(native.get("id", ""))
    return BridgeVlans(carried, pvid, VlanList.read(pvid if native.get("nativeMode") == "untagged" else ""))


def filtering_groups(xml_text: str) -> dict[str, BridgeVlans] | None:
    """The portgroups of a libvirt network vnetbench deployed for a VLAN-filtering bridge (name -> the port
    VLANs they give), or None when the network is not one."""
    root = ET.fromstring(xml_text)
    name = root.findtext("name") or ""
    mark = read_mark(xml_text)
    groups = root.findall("portgroup")
    if mark is None or mark.key != f"ovs/{name}" or not groups:
        return None
    found: dict[str, BridgeVlans] = {}
    for group in groups:
        vlan = group.find("vlan")
        vlans = bridge_vlans(vlan) if vlan is not None else None
        if vlans is None:
            return None
        port, _ = filtering_port(vlans, "")
        if port is None or group.get("name") != FabricParts.filtering_group(port):
            return None
        found[group.get("name", "")] = vlans
    return found
