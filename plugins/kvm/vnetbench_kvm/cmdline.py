"""The probe guest's kernel command line: how each vNIC's addresses (both families), guest VLAN and name, and
the default gateways reach the guest without DHCP (``guest/rc`` reads them), and how import reads them back.

    vnb.nic=MAC,ADDRESS,VLAN,NAME   one per vNIC: its first address/prefix ("-": none), its guest VLAN (empty:
                                    none) and the name the guest gives it
    vnb.addr=MAC,ADDRESS            one per further address of that vNIC (the other family, secondaries, an IPv6
                                    link-local one)
    vnb.gw=ADDRESS                  the IPv4 default gateway
    vnb.gw6=ADDRESS[%NAME]          the IPv6 default gateway; a link-local one names the guest's interface

An IPv4-only guest gets exactly the words images made before IPv6 took, and such an image skips the words it
does not know: an old image keeps configuring IPv4.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vnetbench.model.families import family, link_local

#: The longest command line the x86 kernel takes (COMMAND_LINE_SIZE).
MAX_CMDLINE = 2048
_GATEWAY_WORDS = {4: "vnb.gw", 6: "vnb.gw6"}


@dataclass
class GuestNic:
    """One vNIC as the command line names it."""

    name: str
    vlan: int | None = None
    addresses: list[str] = field(default_factory=list)


def nic_words(mac: str, addresses: list[str], vlan: int | None, name: str) -> list[str]:
    """The words of one vNIC: ``vnb.nic`` with its first address, ``vnb.addr`` for each further one."""
    first = addresses[0] if addresses else "-"
    return [f"vnb.nic={mac},{first},{vlan or ''},{name}", *(f"vnb.addr={mac},{a}" for a in addresses[1:])]


def gateway_word(gateway: str, dev: str) -> str:
    """A gateway as ``vnb.gw``/``vnb.gw6`` carries it: a link-local one with the guest's interface ``dev`` as its
    scope (whatever interface name the design wrote after ``%``), any other without a scope."""
    address = gateway.strip().split("%", 1)[0]
    return f"{address}%{dev}" if link_local(address) else address


def gateway_words(gateways: dict[int, str]) -> list[str]:
    """``vnb.gw`` and ``vnb.gw6`` from family -> gateway (``gateway_word``)."""
    return [f"{_GATEWAY_WORDS[fam]}={gateways[fam]}" for fam in (4, 6) if fam in gateways]


def parse(cmdline: str) -> tuple[dict[str, GuestNic], dict[int, str]]:
    """The vNICs (MAC, lower case -> ``GuestNic``) and the gateways (family -> address, a link-local one with
    ``%NAME``) a command line names; words of neither kind are skipped."""
    nics: dict[str, GuestNic] = {}
    extra: list[tuple[str, str]] = []
    gateways: dict[int, str] = {}
    for word in cmdline.split():
        key, _, value = word.partition("=")
        if key == "vnb.nic":
            mac, addr, vlan, name = (value.split(",", 3) + ["", "", ""])[:4]
            nics[mac.lower()] = GuestNic(name, int(vlan) if vlan.isdigit() else None,
                                         [] if addr in ("", "-") else [addr])
        elif key == "vnb.addr" and "," in value:
            mac, addr = value.split(",", 1)
            extra.append((mac.lower(), addr))
        elif key in ("vnb.gw", "vnb.gw6") and (fam := family(value)) is not None:
            gateways[fam] = value
    for mac, addr in extra:
        if mac in nics:
            nics[mac].addresses.append(addr)
    return nics, gateways
