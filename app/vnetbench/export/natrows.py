"""A router or edge VM's NAT rules as the report's rows, where it lists the routes: what each rule matches and
what it translates to, in the order the VM tries them."""

from __future__ import annotations

from ..model.objects import VM


def nat_rows(vm: VM) -> list[dict[str, str]]:
    """SNAT then DNAT rules, one row each: ``kind``, ``name``, ``match``, ``to``."""
    rows = []
    for i, s in enumerate(vm.forwarding.snat, start=1):
        rows.append({"kind": "SNAT", "name": s.name or str(i),
                     "match": f"from {s.source}" + (f", leaving by {s.interface}" if s.interface else ""),
                     "to": f"source {s.to}"})
    for i, d in enumerate(vm.forwarding.dnat, start=1):
        what = "" if d.proto == "any" and d.port is None else f" {d.proto}" + (f" port {d.port}" if d.port else "")
        rows.append({"kind": "DNAT", "name": d.name or str(i), "match": f"to {d.address}{what}",
                     "to": f"destination {d.to}" + (f" port {d.to_port}" if d.to_port else "")})
    return rows
