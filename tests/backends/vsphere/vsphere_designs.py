"""Designs that fit vcsim's default inventory (datacenter DC0, host DC0_H0, cluster DC0_C0 with DC0_C0_H0..2)."""

from __future__ import annotations

from vnetbench.model import VM, Host, NicType, PNic, Portgroup, Security, Switch, SwitchKind, Topology, Uplink, VNic


def lab_design(design_id: str = "vsphere-lab") -> Topology:
    h0 = Host("h0", "DC0_H0", pnics=[PNic("h0-vmnic0", "vmnic0"), PNic("h0-vmnic1", "vmnic1")])
    c0 = Host("c0", "DC0_C0_H0", pnics=[PNic("c0-vmnic0", "vmnic0")])
    c1 = Host("c1", "DC0_C0_H1", pnics=[PNic("c1-vmnic0", "vmnic0")])
    # vcsim only lets a VM onto a vDS when every host of its cluster is a member (a real vCenter asks that
    # of the VM's own host only), so the whole cluster joins.
    c2 = Host("c2", "DC0_C0_H2", pnics=[PNic("c2-vmnic0", "vmnic0")])
    vss = Switch("vss", "lab", SwitchKind.VSS, host="h0", uplinks=[Uplink("h0-vmnic1")], portgroups=[
        Portgroup("pg-none", "untagged", 0),
        Portgroup("pg-10", "vlan10", 10),
        Portgroup("pg-all", "all-vlans", 4095, security=Security(promiscuous=True)),
    ])
    vds = Switch("vds", "vnb-test-dvs", SwitchKind.VDS, members=["c0", "c1", "c2"],
                 uplinks=[Uplink("c0-vmnic0"), Uplink("c1-vmnic0"), Uplink("c2-vmnic0")], portgroups=[
        Portgroup("dv-20", "dv-vlan20", 20),
        Portgroup("dv-trunk", "dv-trunk", "trunk 100-200,300", security=Security(forged_transmits=False)),
    ])
    vms = [
        VM("vm-a", "vnb-test-a", host="h0", vnics=[
            VNic("a0", "eth0", NicType.VMXNET3, network="pg-none", ip="10.0.0.1/24"),
            VNic("a1", "eth1", NicType.E1000E, network="pg-10", ip="10.10.0.1/24")]),
        VM("vm-b", "vnb-test-b", host="c0", vnics=[VNic("b0", "eth0", NicType.VMXNET3, network="dv-20",
                                                         ip="10.20.0.2/24")]),
        VM("vm-c", "vnb-test-c", host="c1", cpus=2, vnics=[VNic("c0n", "eth0", NicType.E1000, network="dv-trunk")]),
    ]
    return Topology(id=design_id, name="vSphere lab", hosts=[h0, c0, c1, c2], switches=[vss, vds], vms=vms)


def many_vms_design(count: int = 100, design_id: str = "vsphere-bench") -> Topology:
    """``count`` VMs with two vNICs each on two standard portgroups of DC0_H0 (the benchmark)."""
    h0 = Host("h0", "DC0_H0", pnics=[PNic("h0-vmnic0", "vmnic0")])
    vss = Switch("vss", "bench", SwitchKind.VSS, host="h0", portgroups=[
        Portgroup("pg-a", "bench-a", 100), Portgroup("pg-b", "bench-b", 200)])
    vms = [VM(f"vm{i}", f"bench-vm{i:03d}", host="h0", vnics=[
        VNic(f"vm{i}-0", "eth0", network="pg-a"), VNic(f"vm{i}-1", "eth1", network="pg-b")]) for i in range(count)]
    return Topology(id=design_id, name="vSphere benchmark", hosts=[h0], switches=[vss], vms=vms)
