"""Designs the KVM benchmarks and the calibration run deploy: guests of one NIC model on a Linux bridge, a pair
across two emulated 1 Gbit/s pNICs, and the seed 001 senders (tap + bridge versus macvtap)."""

from __future__ import annotations

from vnetbench.model import (VM, Host, HostKind, Link, MacvtapMode, NicType, PhysicalSwitch, PNic, Port, Switch,
                             SwitchKind, Topology, Uplink, VNic)


def _host(pnics: int) -> Host:
    return Host("h", "kvm01", HostKind.KVM, cpus=2, pnics=[PNic(f"h-eth{i}", f"eth{i}") for i in range(pnics)])


def _tor(ports: int) -> PhysicalSwitch:
    return PhysicalSwitch("tor1", "tor1", [Port(f"p{i}", f"Gi0/{i + 1}", access_vlan=10) for i in range(ports)])


def _vm(name: str, nic_type: NicType, network: str, ip: str) -> VM:
    return VM(f"vm-{name}", name, host="h", vnics=[VNic(f"nic-{name}", "eth0", nic_type, network=network, ip=ip)])


def bridge_guests(nic_type: NicType, count: int, design_id: str | None = None) -> Topology:
    """``count`` guests with ``nic_type`` on one Linux bridge (in-host: the emulated adapter is the bottleneck)."""
    br = Switch("br0", "br0", SwitchKind.LINUX_BRIDGE, host="h")
    vms = [_vm(f"{nic_type.value}-{i}", nic_type, "br0", f"10.50.0.{10 + i}/24") for i in range(count)]
    return Topology(design_id or f"kvm-bench-{nic_type.value}-{count}", f"KVM {count} x {nic_type.value}",
                    hosts=[_host(0)], switches=[br], vms=vms)


def all_models(models: tuple[NicType, ...]) -> Topology:
    """A pair of guests per NIC model, all on one Linux bridge (a subnet per pair): calibrated side by side."""
    br = Switch("br0", "br0", SwitchKind.LINUX_BRIDGE, host="h")
    vms = [_vm(f"{t.value}-{i}", t, "br0", f"10.50.{k}.{10 + i}/24") for k, t in enumerate(models) for i in range(2)]
    return Topology("kvm-calibrate", "KVM calibration: every NIC model", hosts=[_host(0)], switches=[br], vms=vms)


def across_pnics() -> Topology:
    """Two virtio guests on two bridges whose uplinks (1 Gbit/s each) meet on tor1: via-physical."""
    switches = [Switch(f"br{i}", f"br{i}", SwitchKind.LINUX_BRIDGE, host="h", uplinks=[Uplink(f"h-eth{i}")])
                for i in range(2)]
    vms = [_vm("left", NicType.VIRTIO, "br0", "10.51.0.11/24"), _vm("right", NicType.VIRTIO, "br1", "10.51.0.12/24")]
    links = [Link(f"l{i}", f"h-eth{i}", f"p{i}") for i in range(2)]
    return Topology("kvm-bench-across", "KVM virtio across 1 Gbit/s pNICs", hosts=[_host(2)], switches=switches,
                    vms=vms, physical_switches=[_tor(2)], links=links)


def udp_senders() -> Topology:
    """Seed 001 on one machine: a sender on tap + Linux bridge (eth1), one on macvtap (eth2), both sending to a
    receiver behind eth0; every path crosses the sender's pNIC, tor1 and the receiver's pNIC alike."""
    switches = [Switch("br-rx", "br-rx", SwitchKind.LINUX_BRIDGE, host="h", uplinks=[Uplink("h-eth0")]),
                Switch("br-tap", "br-tap", SwitchKind.LINUX_BRIDGE, host="h", uplinks=[Uplink("h-eth1")]),
                Switch("mv", "macvtap-eth2", SwitchKind.MACVTAP, host="h", uplinks=[Uplink("h-eth2")],
                       macvtap_mode=MacvtapMode.BRIDGE)]
    vms = [_vm("receiver", NicType.VIRTIO, "br-rx", "10.52.0.10/24"),
           _vm("tap-sender", NicType.VIRTIO, "br-tap", "10.52.0.11/24"),
           _vm("macvtap-sender", NicType.VIRTIO, "mv", "10.52.0.12/24")]
    links = [Link(f"l{i}", f"h-eth{i}", f"p{i}") for i in range(3)]
    return Topology("kvm-bench-udp", "KVM small-UDP senders: tap + bridge vs macvtap", hosts=[_host(3)],
                    switches=switches, vms=vms, physical_switches=[_tor(3)], links=links)
