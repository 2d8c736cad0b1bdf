"""libvirt XML: what this backend defines (domains, networks) and the vnetbench mark inside it.

The mark is one element in the object's ``<metadata>``, in vnetbench's own namespace:
``<vnb:managed design="DESIGN ID" key="domain/vnb-1a2b3c-web01" mark="SPEC DIGEST" state="ready"/>``. It is
written in the same ``define`` call that creates the object, so an apply killed half-way never leaves an
object vnetbench made but cannot recognise. ``state`` is ``building`` until a domain has booted and loaded
its rules; the next plan rebuilds a domain that never got to ``ready``. An OVS network's mark holds the switch's
private VLAN map as ``<vnb:pvlan primary= secondary= type=/>`` children (``read_pvlans``), for import.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

NS = "https://vnetbench.io/xmlns/libvirt/1"
PREFIX = "vnb"
ET.register_namespace(PREFIX, NS)


@dataclass(frozen=True)
class Mark:
    design: str
    key: str
    mark: str
    state: str = "ready"
    role: str = ""             # a domain's design role (vm, router, firewall) and design host: import reads
    host: str = ""             # them back


def _metadata(parent: ET.Element, mark: Mark) -> None:
    meta = ET.SubElement(parent, "metadata")
    ET.SubElement(meta, f"{{{NS}}}managed", {"design": mark.design, "key": mark.key, "mark": mark.mark,
                                             "state": mark.state, **({"role": mark.role} if mark.role else {}),
                                             **({"host": mark.host} if mark.host else {})})


def mark_xml(mark: Mark) -> str:
    """The metadata element alone (for ``setMetadata``)."""
    role = f' role="{_esc(mark.role)}"' if mark.role else ""
    role += f' host="{_esc(mark.host)}"' if mark.host else ""
    return (f'<managed design="{_esc(mark.design)}" key="{_esc(mark.key)}" mark="{mark.mark}" '
            f'state="{mark.state}"{role}/>')


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def read_mark(xml_text: str) -> Mark | None:
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError:
        return None
    el = root.find(f"metadata/{{{NS}}}managed")
    if el is None:
        return None
    return Mark(el.get("design", ""), el.get("key", ""), el.get("mark", ""), el.get("state", "ready"),
                el.get("role", ""), el.get("host", ""))


def read_pvlans(xml_text: str) -> list[dict[str, str]]:
    """The private VLAN map vnetbench wrote in a network's mark (empty: none, or not vnetbench's network)."""
    root = ET.fromstring(xml_text)
    return [dict(el.attrib) for el in root.findall(f"metadata/{{{NS}}}managed/{{{NS}}}pvlan")]


def _text(parent: ET.Element, tag: str, text: str, **attrs: str) -> ET.Element:
    el = ET.SubElement(parent, tag, attrs)
    el.text = text
    return el


def domain_xml(spec: dict[str, Any], mark: Mark, channels: int) -> str:
    dom = ET.Element("domain", {"type": spec["type"]})
    _text(dom, "name", spec["name"])
    _metadata(dom, mark)
    _text(dom, "memory", str(spec["memory_mb"]), unit="MiB")
    _text(dom, "vcpu", str(spec["vcpus"]))
    os_ = ET.SubElement(dom, "os")
    _text(os_, "type", "hvm", arch="x86_64", machine=spec["machine"])
    _text(os_, "kernel", spec["kernel"])
    _text(os_, "initrd", spec["initrd"])
    _text(os_, "cmdline", spec["cmdline"])
    ET.SubElement(ET.SubElement(dom, "features"), "acpi")
    ET.SubElement(dom, "clock", {"offset": "utc"})
    for event, action in (("on_poweroff", "destroy"), ("on_reboot", "restart"), ("on_crash", "destroy")):
        _text(dom, event, action)
    dev = ET.SubElement(dom, "devices")
    for nic in spec["nics"]:
        itf = ET.SubElement(dev, "interface", {"type": "network"})
        ET.SubElement(itf, "source", {"network": nic["network"], **({"portgroup": nic["portgroup"]}
                                                                   if nic["portgroup"] else {})})
        ET.SubElement(itf, "mac", {"address": nic["mac"]})
        ET.SubElement(itf, "model", {"type": nic["model"]})
        if not nic["up"]:
            ET.SubElement(itf, "link", {"state": "down"})
    ET.SubElement(ET.SubElement(dev, "serial", {"type": "pty"}), "target", {"port": "0"})
    ET.SubElement(ET.SubElement(dev, "console", {"type": "pty"}), "target", {"type": "serial", "port": "0"})
    for n in range(channels):
        ch = ET.SubElement(dev, "channel", {"type": "unix"})
        ET.SubElement(ch, "source", {"mode": "bind"})
        ET.SubElement(ch, "target", {"type": "virtio", "name": f"vnetbench.{n}"})
    ET.SubElement(dev, "memballoon", {"model": "none"})
    return ET.tostring(dom, encoding="unicode")


def network_xml(kind: str, spec: dict[str, Any], mark: Mark) -> str:
    """A Linux bridge or OVS switch (``forward mode='bridge'`` on the bridge we made), or a macvtap."""
    net = ET.Element("network")
    _text(net, "name", spec["network"])
    _metadata(net, mark)
    managed = net.find(f"metadata/{{{NS}}}managed")
    assert managed is not None, "_metadata wrote it"
    for entry in spec.get("pvlans", []):          # an OVS switch's private VLAN map, for import (desired_pvlan)
        ET.SubElement(managed, f"{{{NS}}}pvlan", {k: str(v) for k, v in entry.items()})
    if kind == "macvtap":
        fwd = ET.SubElement(net, "forward", {"mode": spec["mode"]})
        ET.SubElement(fwd, "interface", {"dev": spec["dev"]})
        return ET.tostring(net, encoding="unicode")
    ET.SubElement(net, "forward", {"mode": "bridge"})
    ET.SubElement(net, "bridge", {"name": spec["bridge"]})
    if kind == "ovs":
        ET.SubElement(net, "virtualport", {"type": "openvswitch"})
        for pg in spec["portgroups"]:
            group = ET.SubElement(net, "portgroup", {"name": pg["name"]})
            vlan = ET.SubElement(group, "vlan", {"trunk": "yes"} if pg["trunk"] else {})
            for tag in pg["tags"]:
                attrs = {"id": str(tag)}
                if pg["native"] == tag:
                    attrs["nativeMode"] = pg.get("native_mode") or "untagged"
                ET.SubElement(vlan, "tag", attrs)
    return ET.tostring(net, encoding="unicode")
