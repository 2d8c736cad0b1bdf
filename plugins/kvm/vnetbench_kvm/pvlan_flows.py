"""The OpenFlow side of private VLANs on Open vSwitch (``desired_pvlan`` plans them): install, read and remove a
bridge's flows with ``ovs-ofctl``.

Every flow vnetbench adds carries a cookie whose top 16 bits say "vn" and whose low 48 bits are the want's mark
(12 hex digits), so a plan reads the mark back from the bridge (``flow_marks``) and removal deletes only flows
with vnetbench's cookie (``ovs-ofctl del-flows BR cookie=C/MASK``), never the bridge's own ``NORMAL`` flow or
anyone else's. Guest ports are found by the MAC libvirt writes on them (``external_ids:attached-mac``), uplink
ports by name; both become OpenFlow port numbers only here, at apply time.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from vnetbench.backends import BackendError

#: The top 16 bits of every vnetbench flow cookie ("vn"), and the mask that selects them.
COOKIE_TAG = 0x766E << 48
COOKIE_MASK = 0xFFFF << 48
#: Above the bridge's default ``NORMAL`` flow (priority 0).
PRIORITY = 100
#: How long a guest's port may take to appear on the bridge after its domain starts.
PORT_WAIT_S = 20.0

_COOKIE = re.compile(r"cookie=(0x[0-9a-f]+)")


def cookie(mark: str) -> int:
    """The cookie of the flows of a want with ``mark`` (12 hex digits)."""
    return COOKIE_TAG | int(mark, 16)


def mark_of(value: int) -> str | None:
    """The mark a vnetbench flow cookie holds, or None for anyone else's cookie."""
    return f"{value & ~COOKIE_MASK:012x}" if value & COOKIE_MASK == COOKIE_TAG else None


def flow_lines(spec: dict[str, Any], mark: str, ports: dict[str, int]) -> list[str]:
    """``ovs-ofctl add-flows`` lines for ``spec`` (``desired_pvlan``): one per port, flooding to the ports its
    role may reach (none: drop). ``ports`` maps port names and guest MACs to OpenFlow port numbers."""
    missing = sorted({_ref(end) for flow in spec["flows"] for end in (flow["in"], *flow["out"])} - set(ports))
    if missing:
        raise BackendError(f"private VLAN flows on {spec['bridge']}: no port for {', '.join(missing)} on the bridge",
                           "check that the guests are running, then deploy again")
    lines = []
    for flow in spec["flows"]:
        where = _ref(flow["in"])
        outs = [f"output:{ports[_ref(o)]}" for o in flow["out"]]
        lines.append(f"cookie={cookie(mark):#x},priority={PRIORITY},in_port={ports[where]},"
                     f"actions={','.join(outs) or 'drop'}")
    return lines


def _ref(end: dict[str, str]) -> str:
    return end.get("mac") or end["port"]


def bridge_ports(shell: Any, bridge: str) -> dict[str, int]:
    """The OpenFlow port numbers of ``bridge``'s interfaces, by name and by the MAC libvirt attached."""
    names = set(shell.vsctl("list-ifaces", bridge).stdout.split())
    rows = json.loads(shell.vsctl("-f", "json", "--columns=name,ofport,external_ids", "list", "Interface").stdout)
    out: dict[str, int] = {}
    for name, ofport, ids in rows["data"]:
        if name not in names or not isinstance(ofport, int) or ofport < 1:
            continue
        out[name] = ofport
        mac = dict(ids[1]).get("attached-mac") if isinstance(ids, list) and ids[0] == "map" else None
        if mac:
            out[mac.lower()] = ofport
    return out


def install(shell: Any, spec: dict[str, Any], mark: str, key: str) -> None:
    """Replace vnetbench's flows on the bridge with ``spec``'s (waiting for the guests' ports to appear)."""
    wanted = {_ref(end) for f in spec["flows"] for end in (f["in"], *f["out"])}
    deadline = time.monotonic() + PORT_WAIT_S
    ports = bridge_ports(shell, spec["bridge"])
    while not wanted <= set(ports) and time.monotonic() < deadline:
        time.sleep(0.5)
        ports = bridge_ports(shell, spec["bridge"])
    lines = flow_lines(spec, mark, ports)
    remove(shell, spec)
    shell.run(["ovs-ofctl", "add-flows", spec["bridge"], "-"], stdin="\n".join(lines) + "\n")


def remove(shell: Any, spec: dict[str, Any]) -> None:
    """Delete every flow with vnetbench's cookie from the bridge (a bridge already gone is fine)."""
    shell.run(["ovs-ofctl", "del-flows", spec["bridge"], f"cookie={COOKIE_TAG:#x}/{COOKIE_MASK:#x}"], check=False)


def flow_marks(shell: Any, bridges: list[str]) -> dict[str, str]:
    """{``flows/BRIDGE``: mark} for each of ``bridges`` that holds vnetbench flows of one mark; a bridge with
    flows of several marks (an interrupted replace) gets none, so the plan installs them again."""
    out: dict[str, str] = {}
    for bridge in bridges:
        proc = shell.run(["ovs-ofctl", "dump-flows", bridge], check=False)
        marks = {m for c in _COOKIE.findall(proc.stdout) if (m := mark_of(int(c, 16))) is not None}
        if len(marks) == 1:
            out[f"flows/{bridge}"] = marks.pop()
        elif marks:
            out[f"flows/{bridge}"] = ""
    return out
