"""Import what vCenter really holds: vcsim's default models, repeated names, guest addresses, adapters and
networks vnetbench does not model, switch drift, and the physical neighbours CDP/LLDP report.

Each imported design must pass ``vnetbench validate`` with no errors; what could not be carried over exactly
comes with a warning (in the design's description and ``import_warnings``), never silently.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pyVmomi import vim
from vnetbench.cli.main import main
from vnetbench.model import NicType, PortMode, SwitchKind, load
from vnetbench.model.validate import validate
from vnetbench_vsphere import inventory, marking

from vcsim_tools import Vcsim, cli_args, make_backend
from vsphere_designs import lab_design

pytestmark = pytest.mark.slow

MODELS = {"vcsim": [], "esx": ["-esx"],
          "dc2": ["-dc", "2", "-cluster", "2", "-host", "4", "-vm", "8", "-pg", "3", "-pod", "1"],
          "nsx": ["-nsx", "1", "-pg-nsx", "1"]}


def errors(topo):
    return [p.message for p in validate(topo) if p.severity == "error"]


def imported(vcsim, memory_keyring, tmp_path):
    """The imported design, and its description (where the import's warnings stay with the design)."""
    be = make_backend(vcsim, memory_keyring, tmp_path)
    be.connect()
    try:
        topo = be.import_design()
        return topo, topo.description
    finally:
        be.close()


@pytest.mark.parametrize("model", MODELS)
def test_each_default_model_imports_to_a_design_validate_accepts(vcsim_tools, memory_keyring, tmp_path, capsys, model):
    sim = Vcsim(*MODELS[model])
    try:
        make_backend(sim, memory_keyring, tmp_path)  # the password, in the test keyring
        out = tmp_path / "imported.vnet.yaml"
        assert main(["import", *cli_args(sim, tmp_path), "-o", str(out)]) == 0, capsys.readouterr().err
        capsys.readouterr()
        assert main(["validate", str(out)]) == 0, capsys.readouterr().out
        topo = load(out)
    finally:
        sim.kill()
    assert topo.hosts and topo.vms
    if model == "dc2":
        assert sorted(s.name for s in topo.switches if s.kind is SwitchKind.VDS) == ["DC0/DVS0", "DC1/DVS0"]
        assert sorted(n.text for n in topo.layout.notes) == ["Datacenter DC0", "Datacenter DC1"]
        assert "datacenters DC0, DC1" in topo.description
        dc1 = {vm.name for vm in topo.vms if vm.name.startswith("DC1_")}
        assert len(dc1) == 24, "every VM of the second datacenter came along"


def test_vms_of_one_name_in_two_folders_get_their_folder(vcsim, memory_keyring, tmp_path):
    for folder in ("prod", "test"):
        vcsim.govc("folder.create", f"/DC0/vm/{folder}")
        # vcsim wants its own files per VM: create under another name, then rename (vSphere allows it)
        vcsim.govc("vm.create", "-on=false", "-host", "DC0_H0", "-net", "VM Network", "-folder", folder,
                   f"web-{folder}")
        vcsim.govc("object.rename", f"/DC0/vm/{folder}/web-{folder}", "web")
    topo, _ = imported(vcsim, memory_keyring, tmp_path)
    names = [vm.name for vm in topo.vms]
    assert "prod/web" in names and "test/web" in names and "web" not in names
    assert "DC0_H0_VM0" in names, "names that do not clash stay as vSphere shows them"
    assert errors(topo) == []


def test_a_dropped_prefix_never_makes_two_names_one(vcsim, memory_keyring, tmp_path):
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "lab")
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "vnb-abcdef-lab")
    vcsim.govc("host.portgroup.add", "-host", "DC0_H0", "-vswitch", "vSwitch0", "vnb-abcdef-solo")
    topo, _ = imported(vcsim, memory_keyring, tmp_path)
    vswitch0 = next(s for s in topo.switches if s.name == "vSwitch0" and s.host == "host-21")
    names = {pg.name for pg in vswitch0.portgroups}
    assert {"lab", "vnb-abcdef-lab", "solo"} <= names
    assert errors(topo) == []


def test_a_guest_address_without_a_prefix_is_imported_with_a_suggestion(vcsim, memory_keyring, tmp_path):
    vcsim.govc("vm.change", "-vm", "DC0_H0_VM0", "-e", "ip0=10.1.2.3")  # what Tools report without ipConfig
    topo, warnings = imported(vcsim, memory_keyring, tmp_path)
    nic = next(vm for vm in topo.vms if vm.name == "DC0_H0_VM0").vnics[0]
    assert nic.ip == "10.1.2.3/24"
    (warning,) = [w for w in warnings.splitlines() if "10.1.2.3" in w]
    assert "no prefix" in warning and "10.1.2.3/24" in warning and "check it" in warning
    assert errors(topo) == []


def add_nics(vm, devices):
    spec = vim.vm.ConfigSpec(deviceChange=[vim.vm.device.VirtualDeviceSpec(operation="add", device=d)
                                           for d in devices])
    task = vm.ReconfigVM_Task(spec)
    while task.info.state not in ("success", "error"):
        pass
    assert task.info.state == "success", task.info.error


def test_adapters_vnetbench_does_not_model_come_with_a_warning(backend, memory_keyring, tmp_path):
    vm = backend.inventory().vm("DC0_H0_VM0").ref
    network = vim.vm.device.VirtualEthernetCard.NetworkBackingInfo
    add_nics(vm, [cls(key=-1 - i, backing=network(deviceName="VM Network"))
                  for i, cls in enumerate([vim.vm.device.VirtualVmxnet3Vrdma, vim.vm.device.VirtualVmxnet,
                                           vim.vm.device.VirtualSriovEthernetCard])])
    topo = backend.import_design()
    warnings = topo.description
    for what in ("a vmxnet3 RDMA (PVRDMA) adapter", "an original VMXNET adapter"):
        assert re.search(rf"vNIC eth\d of VM DC0_H0_VM0 is {re.escape(what)}, which vnetbench does not model; "
                         r"imported as \w+", warnings), warnings
    vnics = next(v for v in topo.vms if v.name == "DC0_H0_VM0").vnics
    assert len(vnics) == 4 and vnics[3].type is NicType.VMXNET3 and vnics[3].physical_function is None
    assert ("vNIC eth3 of VM DC0_H0_VM0 is an SR-IOV adapter whose physical function (none given) is no pNIC of its "
            "host; imported as vmxnet3") in warnings
    assert errors(topo) == []
    assert len(backend.import_warnings) == 3 and all(w in topo.description for w in backend.import_warnings)


def test_nsx_and_missing_networks_warn_and_keep_what_is_known(vcsim_tools, memory_keyring, tmp_path):
    sim = Vcsim("-nsx", "2", "-pg-nsx", "1")
    try:
        sim.govc("host.portgroup.add", "-host", "DC0_C0_H0", "-vswitch", "vSwitch0", "only-c0")
        sim.govc("vm.create", "-on=false", "-host", "DC0_H0", "-net", "only-c0", "lonely")  # vcsim lets it
        be = make_backend(sim, memory_keyring, tmp_path)
        be.connect()
        content = be.conn.content
        view = content.viewManager.CreateContainerView(content.rootFolder, [vim.OpaqueNetwork], True)
        opaque = next(n for n in view.view if n.name == "DC0_NSX0")
        vm = be.inventory().vm("DC0_H0_VM1").ref
        backing = vim.vm.device.VirtualEthernetCard.OpaqueNetworkBackingInfo(
            opaqueNetworkId=opaque.summary.opaqueNetworkId, opaqueNetworkType=opaque.summary.opaqueNetworkType)
        add_nics(vm, [vim.vm.device.VirtualVmxnet3(key=-1, backing=backing)])
        topo = be.import_design()
        warnings = topo.description
        listed = be.import_warnings
        be.close()
    finally:
        sim.kill()
    vm1 = next(v for v in topo.vms if v.name == "DC0_H0_VM1")
    segment = next(s for s in topo.switches if s.kind is SwitchKind.NSX_SEGMENT)
    assert segment.name == "DC0_NSX0" and vm1.vnics[1].network == segment.portgroups[0].id
    assert segment.members == [vm1.host]
    assert "NSX network DC0_NSX0 is imported as an NSX segment" in warnings
    unused = [w for w in listed if w.startswith("NSX network DC0_NSX1 is used by no VM and is not imported")]
    assert len(unused) == 1 and unused[0] in warnings, "an NSX network no VM uses is named, not dropped silently"
    assert [s.name for s in topo.switches if s.kind is SwitchKind.NSX_SEGMENT] == ["DC0_NSX0"]
    lonely = next(v for v in topo.vms if v.name == "lonely")
    assert lonely.vnics[0].network is None
    assert "vNIC eth0 of VM lonely is on the network 'only-c0', which its host DC0_H0 has no portgroup for" in warnings
    assert errors(topo) == []


# --- recorded objects: what a real vCenter returns where vcsim has nothing to say -------------------------

CDP_HINT = """<returnval>
  <device>{pnic}</device>
  <subnet><vlanId>0</vlanId><ipSubnet>10.0.0.0-10.0.0.255</ipSubnet></subnet>
  <subnet><vlanId>10</vlanId><ipSubnet>10.10.0.0-10.10.0.255</ipSubnet></subnet>
  <subnet><vlanId>20</vlanId><ipSubnet>10.20.0.0-10.20.0.255</ipSubnet></subnet>
  <connectedSwitchPort>
    <cdpVersion>2</cdpVersion><timeout>0</timeout><ttl>154</ttl><samples>3</samples>
    <devId>core-sw1.example.net</devId><address>10.0.0.2</address><portId>{port}</portId>
    <deviceCapability><router>true</router><transparentBridge>false</transparentBridge>
      <sourceRouteBridge>false</sourceRouteBridge><networkSwitch>true</networkSwitch><host>false</host>
      <igmpEnabled>true</igmpEnabled><repeater>false</repeater></deviceCapability>
    <softwareVersion>Cisco IOS Software, Catalyst L3 Switch Software, Version 16.12.4</softwareVersion>
    <hardwarePlatform>cisco WS-C3850-24T</hardwarePlatform><ipPrefix>0.0.0.0</ipPrefix><ipPrefixLen>0</ipPrefixLen>
    <vlan>1</vlan><fullDuplex>true</fullDuplex><mtu>1500</mtu><systemName>core-sw1</systemName>
    <systemOID>1.3.6.1.4.1.9.1.2066</systemOID><mgmtAddr>10.0.0.2</mgmtAddr><location></location>
  </connectedSwitchPort>
</returnval>"""

LLDP_HINT = """<returnval xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <device>{pnic}</device>
  <network><vlanId>30</vlanId><network>backup</network></network>
  <lldpInfo>
    <chassisId>00:1c:73:aa:bb:cc</chassisId><portId>00:1c:73:aa:bb:d7</portId><timeToLive>120</timeToLive>
    <parameter><key>Port Description</key><value xsi:type="xsd:string">Ethernet7</value></parameter>
    <parameter><key>System Name</key><value xsi:type="xsd:string">leaf-2</value></parameter>
    <parameter><key>Vlan ID</key><value xsi:type="xsd:string">30</value></parameter>
  </lldpInfo>
</returnval>"""


def network_system(saved: Path, host_moid: str) -> Path:
    """The saved HostNetworkSystem object of a host (``govc object.save`` layout)."""
    host = next(saved.glob(f"*-HostSystem-{host_moid}.xml")).read_text()
    moid = re.search(r"HostNetworkSystem.{0,40}?>(hostnetworksystem-\d+)<", host, re.S).group(1)
    return next(saved.glob(f"*-HostNetworkSystem-{moid}.xml"))


def test_cdp_and_lldp_neighbours_become_cabled_switch_ports(vcsim, memory_keyring, tmp_path):
    saved = tmp_path / "saved"
    vcsim.govc("object.save", "-d", str(saved))
    inv = make_backend(vcsim, memory_keyring, tmp_path).inventory()
    h0, c0 = inv.host("DC0_H0"), inv.host("DC0_C0_H0")
    for host, hints in ((h0, [CDP_HINT.format(pnic="vmnic0", port="GigabitEthernet1/0/7"),
                              LLDP_HINT.format(pnic="vmnic1")]),
                        (c0, [CDP_HINT.format(pnic="vmnic0", port="GigabitEthernet1/0/8")])):
        record = saved / network_system(saved, host.moid).stem.split("-", 1)[1] / "QueryNetworkHint.xml"
        record.write_text("<QueryNetworkHintResponse>" + "".join(hints) + "</QueryNetworkHintResponse>")
    vcsim.kill()
    vcsim.args = ["-load", str(saved)]
    vcsim.start()
    topo, warnings = imported(vcsim, memory_keyring, tmp_path)
    switches = {ps.name: ps for ps in topo.physical_switches}
    assert sorted(switches) == ["core-sw1.example.net", "leaf-2"]
    core = switches["core-sw1.example.net"]
    ports = {p.name: p for p in core.ports}
    assert sorted(ports) == ["GigabitEthernet1/0/7", "GigabitEthernet1/0/8"]
    assert (ports["GigabitEthernet1/0/7"].mode, ports["GigabitEthernet1/0/7"].allowed,
            ports["GigabitEthernet1/0/7"].native_vlan) == (PortMode.TRUNK, "10,20", 1)
    leaf = switches["leaf-2"].ports[0]
    assert (leaf.name, leaf.mode, leaf.access_vlan) == ("Ethernet7", PortMode.ACCESS, 30)
    cables = {(link.a, link.b) for link in topo.links}
    assert cables == {(f"{h0.moid}-vmnic0", ports["GigabitEthernet1/0/7"].id),
                      (f"{h0.moid}-vmnic1", leaf.id), (f"{c0.moid}-vmnic0", ports["GigabitEthernet1/0/8"].id)}
    assert "are trunks of the VLANs the hosts saw" in warnings
    assert errors(topo) == []


def test_neighbour_mapping_of_recorded_hints():
    from vnetbench_vsphere.neighbours import neighbour

    hint = vim.host.PhysicalNic.NetworkHint
    cdp = hint(device="vmnic2", subnet=[hint.IpNetwork(vlanId=0, ipSubnet="10.0.0.0-10.0.0.255"),
                                        hint.IpNetwork(vlanId=100, ipSubnet="10.1.0.0-10.1.0.255")],
               connectedSwitchPort=vim.host.PhysicalNic.CdpInfo(devId="sw9", portId="Te1/1/1", vlan=5,
                                                                systemName="sw9-sys"))
    assert neighbour("host-1", cdp) == neighbour("host-1", cdp)
    n = neighbour("host-1", cdp)
    assert (n.pnic, n.switch, n.port, n.native_vlan, n.vlans, n.protocol) == ("vmnic2", "sw9", "Te1/1/1", 5,
                                                                               (100,), "CDP")
    kv = vim.KeyAnyValue
    lldp = hint(device="vmnic3", lldpInfo=vim.host.PhysicalNic.LldpInfo(
        chassisId="aa:bb:cc:00:11:22", portId="swp7", timeToLive=120,
        parameter=[kv(key="Port Description", value="to esx03"), kv(key="Port VLAN ID", value="12")]))
    n = neighbour("host-1", lldp)
    assert (n.switch, n.port, n.native_vlan, n.protocol) == ("aa:bb:cc:00:11:22", "swp7", 12, "LLDP")
    assert neighbour("host-1", hint(device="vmnic4")) is None, "no CDP, no LLDP: no cable"


def test_prefix_from_the_guest_routes_when_tools_give_none():
    route = vim.net.IpRouteConfigInfo.IpRoute
    stack = vim.vm.GuestInfo.StackInfo(ipRouteConfig=vim.net.IpRouteConfigInfo(ipRoute=[
        route(network="0.0.0.0", prefixLength=0), route(network="10.4.0.0", prefixLength=16),
        route(network="10.4.8.0", prefixLength=22), route(network="224.0.0.0", prefixLength=4)]))
    net = vim.vm.GuestInfo.NicInfo(deviceConfigId=4000, ipAddress=["10.4.9.7", "192.0.2.1"])
    assert inventory._ips([net], 4000, None, inventory._routes([stack])) == [("10.4.9.7", 22), ("192.0.2.1", None)]


def test_a_switch_whose_uplinks_were_all_removed_is_drift(vcsim, memory_keyring, tmp_path):
    """vcsim keeps no switch spec; a recorded one (as ESXi reports a switch without a bridge) shows the drift."""
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    design = lab_design()
    assert all(r.ok for r in backend.apply(backend.plan(design)))
    saved = tmp_path / "saved"
    vcsim.govc("object.save", "-d", str(saved))
    record = network_system(saved, backend.inventory().host("DC0_H0").moid)
    name = marking.standard_name(design.id, "lab")
    text = record.read_text()
    text, count = re.subn(rf"(<name>{name}</name>.*?)<spec>\s*<numPorts>0</numPorts>\s*</spec>",
                          r"\1<spec><numPorts>128</numPorts><mtu>1500</mtu></spec>", text, count=1, flags=re.S)
    assert count == 1
    record.write_text(text)
    backend.close()
    vcsim.kill()
    vcsim.args = ["-load", str(saved)]
    vcsim.start()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    plan = backend.plan(design)
    assert [c.description for c in plan.changes] == ["standard switch lab on DC0_H0: MTU 1500, uplinks vmnic1"]
    imported_design = backend.import_design()
    lab = next(s for s in imported_design.switches if s.name == "lab")
    assert lab.uplinks == [] and lab.mtu == 1500
