"""Small designs the panel tests are built on (each builder returns a fresh ``Topology``)."""

from __future__ import annotations

from vnetbench.model import (VM, Host, Link, PhysicalSwitch, PNic, Port, PortMode, Portgroup, Switch,
                             SwitchKind, Topology, Uplink, VNic)


def vm(vm_id: str, host: str, network: str, ip: str, gateway: str | None = None) -> VM:
    return VM(id=vm_id, name=vm_id, host=host,
              vnics=[VNic(id=f"{vm_id}-nic0", name="eth0", network=network, ip=ip, gateway=gateway)])


def two_vms_one_switch() -> Topology:
    """esx01 with an isolated vSwitch1 holding two portgroups in VLAN 10: vm-a and vm-b talk in the host.

    Moving portgroup ``pg-b`` to another VLAN makes them unreachable (no uplink, no router).
    """
    return Topology(
        id="t-two", name="two VMs",
        hosts=[Host(id="esx01", name="esx01")],
        switches=[Switch(id="vs1", name="vSwitch1", kind=SwitchKind.VSS, host="esx01",
                         portgroups=[Portgroup(id="pg-a", name="PG-A", vlan=10),
                                     Portgroup(id="pg-b", name="PG-B", vlan=10)])],
        vms=[vm("vm-a", "esx01", "pg-a", "10.0.10.1/24"), vm("vm-b", "esx01", "pg-b", "10.0.10.2/24")],
    )


def two_hosts_via_switch() -> Topology:
    """Two ESXi hosts, each vSwitch uplinked to one physical switch trunk: vm-a -> vm-c crosses the pNICs."""
    topo = two_vms_one_switch()
    topo.id = "t-phys"
    topo.hosts[0].pnics = [PNic(id="esx01-vmnic0", name="vmnic0")]
    topo.switches[0].uplinks = [Uplink(pnic="esx01-vmnic0")]
    topo.hosts.append(Host(id="esx02", name="esx02", pnics=[PNic(id="esx02-vmnic0", name="vmnic0")]))
    topo.switches.append(Switch(id="vs2", name="vSwitch1", kind=SwitchKind.VSS, host="esx02",
                                uplinks=[Uplink(pnic="esx02-vmnic0")],
                                portgroups=[Portgroup(id="pg-c", name="PG-C", vlan=10)]))
    topo.vms.append(vm("vm-c", "esx02", "pg-c", "10.0.10.3/24"))
    topo.physical_switches = [PhysicalSwitch(id="sw1", name="sw1", ports=[
        Port(id="sw1-p1", name="Gi0/1", mode=PortMode.TRUNK),
        Port(id="sw1-p2", name="Gi0/2", mode=PortMode.TRUNK)])]
    topo.links = [Link(id="l1", a="esx01-vmnic0", b="sw1-p1"), Link(id="l2", a="esx02-vmnic0", b="sw1-p2")]
    return topo


def bad_design() -> Topology:
    """Two mistakes validation must report: a VLAN out of range and a vNIC on a portgroup that does not exist."""
    topo = two_vms_one_switch()
    topo.switches[0].portgroups[0].vlan = 5000
    topo.vms[1].vnics[0].network = "pg-missing"
    return topo


def many_vms(count: int, hosts: int = 10, vlans: int = 4) -> Topology:
    """``count`` VMs spread over ``hosts`` isolated vSwitches with ``vlans`` VLAN portgroups each."""
    topo = Topology(id=f"t-many-{count}", name=f"{count} VMs")
    for h in range(hosts):
        host_id = f"h{h}"
        topo.hosts.append(Host(id=host_id, name=f"esx{h:02}"))
        topo.switches.append(Switch(id=f"{host_id}-vs", name="vSwitch0", host=host_id, portgroups=[
            Portgroup(id=f"{host_id}-pg{v}", name=f"VLAN{10 + v}", vlan=10 + v) for v in range(vlans)]))
    for i in range(count):
        h, v = i % hosts, (i // hosts) % vlans
        topo.vms.append(vm(f"vm{i:04}", f"h{h}", f"h{h}-pg{v}", f"10.{10 + v}.{i // 250}.{i % 250 + 1}/16"))
    return topo
