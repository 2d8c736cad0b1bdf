"""Which vNIC types a guest can use, per platform: the one table validation (and the inspector) read.

VMware hosts (ESXi, hosted VMware Server/Workstation) offer the VMware adapter family, but a guest OS gets only
the types vSphere lists for it. Figures from the vNIC types seed (004_b4e80c7e14289dd7.txt): a Debian 6-8 guest
gets E1000 and VMXNET3, and Flexible when set up as "other Linux"; Flexible shows in the guest as Vlance (its
stock driver has no VMXNET), so both names are accepted for it. E1000e needs Windows 8 / Server 2012 or later and
VM hardware version 8. KVM (QEMU) emulates its own family for any guest, including pcnet (Vlance), e1000 and
vmxnet3 from the VMware list; it has no VMXNET2.

ESXi also hands a guest hardware: an SR-IOV virtual function (hardware version 10, vSphere 5.5) or a whole pNIC
through DirectPath I/O (hardware version 7). The guest's own driver for the NIC runs them, so any guest OS may.
"""

from __future__ import annotations

from dataclasses import dataclass

from .objects import HostKind, NicType

N = NicType

#: Adapter types each platform offers at all.
PLATFORM_NIC_TYPES: dict[HostKind, frozenset[NicType]] = {
    HostKind.ESXI: frozenset({N.VLANCE, N.FLEXIBLE, N.E1000, N.E1000E, N.VMXNET2, N.VMXNET3, N.SRIOV, N.DIRECTPATH}),
    HostKind.HOSTED: frozenset({N.VLANCE, N.FLEXIBLE, N.E1000, N.E1000E, N.VMXNET2, N.VMXNET3}),
    # QEMU 7.2 emulates pcnet (what Vlance/Flexible show the guest), e1000, e1000e, vmxnet3, virtio-net, rtl8139.
    HostKind.KVM: frozenset({N.VIRTIO, N.E1000, N.E1000E, N.RTL8139, N.VLANCE, N.FLEXIBLE, N.VMXNET3}),
}


@dataclass(frozen=True)
class GuestOs:
    """A guest OS family as vSphere sees it: the VMware adapter types it supports."""

    label: str
    vmware_nics: frozenset[NicType]


_LINUX_DISTRO = frozenset({N.VLANCE, N.FLEXIBLE, N.E1000, N.VMXNET3})
_OTHER_LINUX = frozenset({N.VLANCE, N.FLEXIBLE, N.E1000, N.VMXNET2, N.VMXNET3})
_OLD_WINDOWS = frozenset({N.VLANCE, N.FLEXIBLE, N.E1000, N.VMXNET2, N.VMXNET3})
_NEW_WINDOWS = frozenset({N.E1000, N.E1000E, N.VMXNET3})
#: Adapters that are the host's hardware handed to the guest: any guest with a driver for the NIC uses them.
HARDWARE_NICS = frozenset({N.SRIOV, N.DIRECTPATH})
_ALL_VMWARE = PLATFORM_NIC_TYPES[HostKind.HOSTED]

#: ``VM.guest_os`` values vnetbench knows. ``other`` checks nothing.
GUESTS: dict[str, GuestOs] = {
    "debian": GuestOs("Debian 6-8", _LINUX_DISTRO),
    "ubuntu": GuestOs("Ubuntu", _LINUX_DISTRO),
    "rhel": GuestOs("Red Hat Enterprise Linux", _LINUX_DISTRO),
    "linux": GuestOs("other Linux", _OTHER_LINUX),
    "freebsd": GuestOs("FreeBSD", frozenset({N.E1000, N.VMXNET2, N.VMXNET3})),
    "windows-xp": GuestOs("Windows XP", _OLD_WINDOWS),
    "windows-7": GuestOs("Windows 7", _OLD_WINDOWS),
    "windows-2008r2": GuestOs("Windows Server 2008 R2", _OLD_WINDOWS),
    "windows-8": GuestOs("Windows 8", _NEW_WINDOWS),
    "windows-10": GuestOs("Windows 10", _NEW_WINDOWS),
    "windows-2012": GuestOs("Windows Server 2012", _NEW_WINDOWS),
    "windows-2012r2": GuestOs("Windows Server 2012 R2", _NEW_WINDOWS),
    "windows-2016": GuestOs("Windows Server 2016", _NEW_WINDOWS),
    "windows-2019": GuestOs("Windows Server 2019", _NEW_WINDOWS),
    "other": GuestOs("other", _ALL_VMWARE),
}

#: The VM hardware version an adapter type needs on VMware (E1000e: 8 per the seed; VMXNET3: 7, vSphere 4).
MIN_HARDWARE: dict[NicType, int] = {N.E1000E: 8, N.VMXNET3: 7, N.SRIOV: 10, N.DIRECTPATH: 7}


def allowed_nic_types(host_kind: HostKind, guest_os: str) -> frozenset[NicType]:
    """The adapter types a guest of ``guest_os`` can use on a ``host_kind`` host (unknown OS: the platform's)."""
    platform = PLATFORM_NIC_TYPES[host_kind]
    guest = GUESTS.get(guest_os.strip().lower())
    if host_kind == HostKind.KVM or guest is None:
        return platform
    return platform & (guest.vmware_nics | HARDWARE_NICS)
