"""Addresses as the backends read them: a design's ``ip/prefix`` fields, and which address an endpoint is reached
at (the ``Endpoint.address`` implementations)."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from .contract import BackendError


def endpoint_address(name: str, addresses: Mapping[str, str], vnic_id: str | None = None, family: int = 4) -> str:
    """The address of ``vnic_id`` (or of the first addressed vNIC) among ``addresses`` (id -> ip/prefix, all
    of ``family``: 4 or 6)."""
    kind = ipaddress.IPv4Interface if family == 4 else ipaddress.IPv6Interface
    if vnic_id is not None:
        if vnic_id not in addresses:
            raise BackendError(f"{name} has no IPv{family} address on {vnic_id!r}",
                               f"give it one, or use one of {', '.join(addresses) or 'none'}")
        return str(kind(addresses[vnic_id]).ip)
    if not addresses:
        raise BackendError(f"{name} has no IPv{family} address", f"give one of its vNICs an IPv{family} address")
    return str(kind(next(iter(addresses.values()))).ip)


def family_address(name: str, addresses: Mapping[str, str], addresses6: Mapping[str, str], family: int,
                   vnic_id: str | None = None) -> str:
    """``Endpoint.address_in`` for an endpoint that keeps its IPv4 and its global IPv6 addresses apart."""
    return endpoint_address(name, addresses if family == 4 else addresses6, vnic_id, family)


def interface_address(text: str | None, where: str, reasons: list[str], only: int | None = None) -> str | None:
    """``text`` (``ip/prefix``, IPv4 or IPv6; of family ``only`` when given) written canonically (IPv6 in its
    RFC 5952 short form); None when absent, or when wrong with a reason naming ``where``."""
    if not text:
        return None
    try:
        if "/" not in text:
            raise ValueError
        itf = ipaddress.ip_interface(text)
    except ValueError:
        reasons.append(f"{where}: {text!r} is not an address/prefix (write it like 10.0.0.5/24 or "
                       "2001:db8:1::5/64)")
        return None
    if only is not None and itf.version != only:
        reasons.append(f"{where}: {text!r} is an IPv{itf.version} address, and this backend configures IPv{only} "
                       f"only (give the interface an IPv{only} ip, with {text} in addresses)")
        return None
    return str(itf)
