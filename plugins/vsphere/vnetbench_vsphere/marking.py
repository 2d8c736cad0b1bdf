"""How vnetbench marks what it creates, so teardown removes exactly that and nothing else.

Each mark is written in the same call that creates the object, so an apply killed half-way never leaves
an object that vnetbench made but cannot recognise:

- VMs: ``config.extraConfig["vnetbench.managed"] = design id`` in the create/clone spec, then also the custom
  attribute ``vnetbench.managed`` (what admins see and filter on in the vSphere Client). Either mark counts.
- Distributed switches and portgroups: their ``description`` reads ``vnetbench.managed=<design id>``.
- Standard switches and standard portgroups are host configuration, not managed entities: they carry no
  description, custom attribute or tag (true on a real ESXi/vCenter as on vcsim). Their name gets the prefix
  ``vnb-<6 hex of the design id>-`` so two designs never ask for one name, but the prefix proves nothing:
  ownership of those lives in the ``ledger``. Import strips the prefix again.

Only a mark makes an object vnetbench's; an unmarked object that has a design's name is someone else's.
A VM also remembers which device is which designed vNIC (``NIC_KEYS``: vNIC id -> device key), because
vSphere moves an edited or re-added adapter to the end of the device list.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

MANAGED_FIELD = "vnetbench.managed"
EXTRA_CONFIG_KEY = "vnetbench.managed"
NIC_KEYS = "vnetbench.nics"
_DESCRIPTION = re.compile(r"vnetbench\.managed=(\S+)")
_PREFIX = re.compile(r"^vnb-([0-9a-f]{6})-(.+)$")


def design_tag(design_id: str) -> str:
    return hashlib.sha1(design_id.encode()).hexdigest()[:6]


def standard_name(design_id: str, name: str) -> str:
    """The name a standard switch or portgroup of ``design_id`` gets on the host."""
    return f"vnb-{design_tag(design_id)}-{name}"


def split_standard_name(name: str) -> tuple[str, str] | None:
    """``vnb-1a2b3c-VLAN10`` -> (``1a2b3c``, ``VLAN10``); ``None`` for names vnetbench did not give."""
    match = _PREFIX.match(name)
    return (match.group(1), match.group(2)) if match else None


def description(design_id: str) -> str:
    return f"Created by vnetbench; teardown removes it. vnetbench.managed={design_id}"


def managed_by_description(text: str | None) -> str | None:
    match = _DESCRIPTION.search(text or "")
    return match.group(1) if match else None


def managed_by_extra_config(options: Iterable[Any]) -> str | None:
    for option in options:
        if option.key == EXTRA_CONFIG_KEY and option.value:
            return str(option.value)
    return None


def nic_keys_value(keys: dict[str, int]) -> str:
    return json.dumps(keys, sort_keys=True, separators=(",", ":"))


def nic_keys_of(options: Iterable[Any]) -> dict[str, int]:
    """The vNIC id -> device key map an apply recorded; empty when none (or someone mangled it)."""
    for option in options:
        if option.key == NIC_KEYS and option.value:
            try:
                data = json.loads(str(option.value))
            except ValueError:
                return {}
            if isinstance(data, dict):
                return {str(k): v for k, v in data.items() if isinstance(v, int)}
    return {}
