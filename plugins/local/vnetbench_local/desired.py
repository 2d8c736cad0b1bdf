"""The design turned into the lab it needs: namespaces, bridges, veths, routes, nftables tables, shapers.

Pure: no kernel access, so it is tested without root. The emulation follows SEMANTICS.md:

- each VM, router/firewall VM, physical router and physical host is a network namespace;
- each host is a "hypervisor" namespace holding one bridge per segment (switch instance, VLAN); a vNIC is a
  veth from the VM's namespace into its segment's bridge. A guest-tagged vNIC on a trunk portgroup is
  simply plugged into the bridge of the VLAN it tags (the kernel here has no 802.1q devices, and none are
  needed: a tag only chooses a segment);
- each physical switch is a namespace with one bridge per VLAN (``v10``); an uplink is one veth per
  (pNIC, physical VLAN), and all veths of one pNIC share one ifb + tbf shaper at the pNIC's speed;
- a switch never sends a frame back out of the port it came in on. When two in-host broadcast domains
  reach the same (port, VLAN), they hang off a per-pNIC bridge as *isolated* ports, so the only way from
  one to the other is out through the pNIC veth and back, which the physical switch bridge does only when
  that port's veth has the hairpin flag. macvtap reuses this: ``bridge`` mode ports talk in-host, ``vepa``
  and ``private`` ports are isolated, and ``private`` also drops hairpinned frames coming back from its
  own guests (an nftables bridge rule on the pNIC veth);
- routers forward (ip_forward) and firewall VMs filter with nftables rules from the model; a bridged
  firewall VM bridges its legs inside its namespace and filters with a bridge-family table; without
  promiscuous mode and forged transmits on its portgroups nothing crosses it;
- NSX segments are a bridge per member host joined by real VXLAN between per-host tunnel endpoints whose
  traffic crosses the transport pNIC; a DLR is one routing namespace per host (``dlr``); the distributed
  firewall filters every guest port in the hypervisor namespaces, both directions;
- hosted networks: bridged joins the pNIC's LAN, host-only is an in-host bridge holding the host's address,
  NAT is a masquerading namespace (``hosted_nat``); a KVM patch is a veth between two bridges.

What the lab cannot emulate is returned as reasons, and ``plan`` refuses the design before anything is made.
"""

from __future__ import annotations

from typing import Any

from vnetbench.backends import nftables as nft
from vnetbench.backends.planning import Want
from vnetbench.model import SwitchKind, Topology

from .desired_base import PHASES, SUPPORTED_SWITCHES, DesiredLab, EndpointInfo
from .desired_guests import GuestParts
from .desired_hosted import HostedParts
from .desired_nsx import NsxParts
from .desired_physical import PhysicalParts
from .desired_pvlan import PvlanParts

__all__ = ["PHASES", "SUPPORTED_SWITCHES", "DesiredLab", "EndpointInfo", "desired_lab"]


class _Builder(GuestParts, PhysicalParts, NsxParts, HostedParts, PvlanParts):
    """The whole lab: each part adds its resources; ``finish`` adds the routes and bridge filters they asked for."""

    def finish(self) -> None:
        for ns, routes in {**{n: [] for n in self.neighbours}, **self.routes}.items():
            deps = [f"netns/{ns}"] + [k for k, r in self.res.items()
                                      if (r.kind == "veth" and ns in (r.spec["a"]["ns"], r.spec["b"]["ns"]))
                                      or (r.kind == "bridge" and r.spec["ns"] == ns)]
            owner = self.res[f"netns/{ns}"].object_id
            spec: dict[str, Any] = {"ns": ns, "routes": routes}
            if ns in self.neighbours:
                spec["neigh"] = self.neighbours[ns]
            what = [f"{r[0]} via {r[1]}" for r in routes] + ([f"{len(self.neighbours[ns])} static neighbours"]
                                                           if ns in self.neighbours else [])
            self._add(Want("routes", f"routes/{ns}", spec, f"routes in {ns} ({', '.join(what)})", owner,
                               tuple(deps)))
        for ns, body in self.bridge_rules.items():
            chains = [("forward", "forward", "accept", body),
                      *((name, "", "", stmts) for name, stmts in self.bridge_chains.get(ns, []))]
            self._add(Want("nft", f"nft/{ns}/bridge", {"ns": ns, "family": "bridge",
                                                          "text": nft.ruleset("bridge", chains)},
                               f"bridge filter in {ns} ({len(body)} rules)", self.res[f"netns/{ns}"].object_id,
                               (f"netns/{ns}",)))
        self.check_loops()

    def check_loops(self) -> None:
        """Linux bridges run no spanning tree here: a layer-2 loop would flood the machine, so refuse it."""
        parent: dict[tuple[str, str], tuple[str, str]] = {}

        def find(x: tuple[str, str]) -> tuple[str, str]:
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for r in self.res.values():
            if r.kind != "veth":
                continue
            a, b = r.spec["a"], r.spec["b"]
            if a["master"] and b["master"]:
                ra, rb = find(self.loop_node(a)), find(self.loop_node(b))
                if ra == rb:
                    self.reasons.append(f"the layer-2 network has a loop through {r.description}: the lab "
                                        "runs no spanning tree (remove a trunk, uplink or bridged firewall leg)")
                    return
                parent[ra] = rb

    def loop_node(self, end: dict[str, Any]) -> tuple[str, str]:
        """What a veth end joins at layer 2: its bridge, or itself where the bridge forwards nothing from it to
        another uplink (``desired_team``, ``desired_pvlan``)."""
        return (end["ns"], end["name"]) if (end["ns"], end["name"]) in self.apart_wires else (end["ns"], end["master"])

    def build(self) -> DesiredLab:
        self.check_supported()
        for vm in self.d.vms:
            self.vm(vm)
        for dlr in self.d.nsx.dlrs:
            self.dlr(dlr)
        for rt in self.d.physical_routers:
            self.physical_router(rt)
        for ph in self.d.physical_hosts:
            self.physical_host(ph)
        self.check_passthrough()
        self.patches()
        for sw in self.d.switches:
            if sw.kind is SwitchKind.HOSTED_NAT:
                self.hosted_nat(sw)
        self.overlay()
        self.check_pvlan()
        self.pvlan_listeners()
        self.uplinks()
        self.team_filters()
        self.pvlan_filters()
        self.trunks()
        self.dfw()
        self.finish()
        self.enable_ipv6()
        ordered = dict(sorted(self.res.items(), key=lambda kv: (PHASES.index(kv[1].kind), kv[0])))
        return DesiredLab(self.tag, ordered, self.endpoints, self.reasons)


def desired_lab(design: Topology) -> DesiredLab:
    """The lab ``design`` needs, with the reasons it cannot be built (empty when it can)."""
    return _Builder(design).build()
