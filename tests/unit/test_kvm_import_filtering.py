"""KVM import of a VLAN-filtering Linux bridge (issue 23): the deploy realises it as an OVS libvirt network with a
``bv-*`` portgroup per port configuration; import reads the libvirt XML the deploy writes (``network_xml``,
``domain_xml`` of the plan's wants, served by a fake connection) back as the filtering bridge with each vNIC's
``bridge_vlans``. Only the mark and the digest-named groups make it one: the same XML without them stays OVS.
The real deploy and import is tests/backends/kvm/test_kvm_fabric.py."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest

from vnetbench import resources_dir
from vnetbench.model import BridgeVlans, SwitchKind, load

EXAMPLE = resources_dir() / "examples" / "kvm-bonded-vlan-filtering-bridge.vnet.yaml"


@dataclass
class _Object:
    xml: str

    def XMLDesc(self, flags: int) -> str:  # noqa: N802 - libvirt's name
        return self.xml


@dataclass
class _Conn:
    """What the importer asks of a libvirt connection, answered with fixed XML."""

    networks: list[str]
    domains: list[str]

    def listAllNetworks(self, flags: int) -> list[_Object]:  # noqa: N802 - libvirt's name
        return [_Object(x) for x in self.networks]

    def listAllDomains(self, flags: int) -> list[_Object]:  # noqa: N802 - libvirt's name
        return [_Object(x) for x in self.domains]

    def getInfo(self) -> list:  # noqa: N802 - libvirt's name
        return ["x86_64", 8192, 8]

    def getHostname(self) -> str:  # noqa: N802 - libvirt's name
        return "kvm01"


def _deployed_xml(design):
    """The libvirt XML of the OVS networks and domains the deploy defines for ``design``."""
    from vnetbench_kvm.desired import Boot, desired
    from vnetbench_kvm.xml import Mark, domain_xml, network_xml

    want = desired(design, {h.id: Boot("/k", "/i") for h in design.hosts})
    assert want.reasons == []
    nets = [network_xml("ovs", w.spec, Mark(design.id, w.key, w.mark)) for w in want.wants.values() if w.kind == "ovs"]
    doms = [domain_xml(w.spec, Mark(design.id, w.key, w.mark, role="vm", host="kvm01"), 1)
            for w in want.wants.values() if w.kind == "domain"]
    return nets, doms


def _import(nets, doms):
    from vnetbench_kvm.importer import import_hosts

    return import_hosts([("kvm01", _Conn(nets, doms), "test:///fake")])


def _fields(vlans: BridgeVlans | None) -> tuple:
    vlans = vlans or BridgeVlans()
    return vlans.vlans.ranges, vlans.pvid, vlans.untagged.ranges


def test_a_deployed_filtering_bridge_comes_back_with_each_vnics_bridge_vlans():
    design = load(EXAMPLE)
    topo = _import(*_deployed_xml(design))
    [br0] = topo.switches
    assert (br0.name, br0.kind, br0.vlan_filtering, br0.portgroups) == ("br0", SwitchKind.LINUX_BRIDGE, True, [])
    got = {vm.name: vm.vnics[0] for vm in topo.vms}
    for vm in design.vms:
        assert got[vm.name].network == br0.id
        assert _fields(got[vm.name].bridge_vlans) == _fields(vm.vnics[0].bridge_vlans), vm.name
    assert _fields(got["tools01"].bridge_vlans) == (((10, 10), (20, 20)), None, ())    # a trunk port, no PVID


@pytest.mark.parametrize("vlan, expected", [
    ("<vlan trunk='yes'><tag id='10' nativeMode='untagged'/><tag id='11'/><tag id='12'/></vlan>",
     (((10, 12),), 10, ((10, 10),))),
    ("<vlan trunk='yes'><tag id='20' nativeMode='tagged'/><tag id='30'/></vlan>", (((20, 20), (30, 30)), 20, ())),
    ("<vlan><tag id='7'/></vlan>", (((7, 7),), 7, ((7, 7),))),              # an access port: PVID, untagged
])
def test_libvirt_vlan_reads_as_bridge_vlans(vlan, expected):
    from vnetbench_kvm.import_filtering import bridge_vlans

    assert _fields(bridge_vlans(ET.fromstring(vlan))) == expected


def test_an_interfaces_own_vlan_wins_over_its_portgroups():
    design = load(EXAMPLE)
    nets, doms = _deployed_xml(design)
    root = ET.fromstring(next(d for d in doms if "web01" in d))
    itf = root.find("devices/interface")
    ET.SubElement(ET.SubElement(itf, "vlan"), "tag", {"id": "30"})
    doms = [ET.tostring(root, encoding="unicode") if "web01" in d else d for d in doms]
    web01 = next(vm for vm in _import(nets, doms).vms if vm.name == "web01")
    assert _fields(web01.vnics[0].bridge_vlans) == (((30, 30),), 30, ((30, 30),))


def _without_mark(xml: str) -> str:
    root = ET.fromstring(xml)
    root.remove(root.find("metadata"))
    return ET.tostring(root, encoding="unicode")


def _renamed_group(xml: str) -> str:
    root = ET.fromstring(xml)
    root.find("portgroup").set("name", "bv-00000000")
    return ET.tostring(root, encoding="unicode")


@pytest.mark.parametrize("change", [_without_mark, _renamed_group], ids=["no mark", "group name not its digest"])
def test_an_ovs_network_vnetbench_did_not_deploy_as_a_filtering_bridge_stays_ovs(change):
    nets, doms = _deployed_xml(load(EXAMPLE))
    [br0] = _import([change(nets[0])], doms).switches
    assert (br0.kind, br0.vlan_filtering) == (SwitchKind.OVS, False)
    assert all(pg.name.startswith("bv-") for pg in br0.portgroups) and len(br0.portgroups) == 3


def test_the_imported_bridge_saves_and_loads_back_with_its_port_vlans():
    from vnetbench.model import dumps, loads
    from vnetbench.model.validate import validate

    topo = _import(*_deployed_xml(load(EXAMPLE)))
    again = loads(dumps(topo))
    assert again.switches[0].vlan_filtering
    assert [_fields(vm.vnics[0].bridge_vlans) for vm in again.vms] == [_fields(vm.vnics[0].bridge_vlans)
                                                                        for vm in topo.vms]
    assert validate(again) == []
