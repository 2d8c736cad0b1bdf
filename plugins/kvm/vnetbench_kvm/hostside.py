"""Host-side plumbing libvirt does not do: bridges, Open vSwitch bridges, the emulated pNICs and physical
switches, patches. Commands run on the KVM host through the ``host_exec`` prefix (nothing: this machine).

What this module creates is marked: a Linux bridge, a pNIC's ifb and a patch veth carry the alias
``vnetbench <mark> <key>``; an OVS bridge the external ids ``vnetbench-design`` and ``vnetbench-mark``; a
physical switch namespace its ``vnk<tag>-`` name and the mark as the alias of its loopback. ``listing()``
reads all of it in three commands, one per kind of thing (links, namespaces, OVS bridges).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from typing import Any

from vnetbench.backends import BackendError
from vnetbench.backends.shaper import shaper_commands

from .config import IFACE, NS_PREFIX

ALIAS = "vnetbench"


@dataclass
class Listing:
    """What a host holds that this module could have made: {key: mark} plus the raw names by kind."""

    marks: dict[str, str] = field(default_factory=dict)
    links: dict[str, dict[str, Any]] = field(default_factory=dict)     # name -> ip -j link entry
    namespaces: list[str] = field(default_factory=list)
    ovs: dict[str, dict[str, str]] = field(default_factory=dict)       # bridge -> external ids
    ovs_ok: bool = False


class HostShell:
    """Runs commands on one KVM host; ``prefix`` is ``host_exec`` split into words."""

    def __init__(self, prefix: list[str]) -> None:
        self.prefix = prefix

    def run(self, argv: list[str], check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
        full = [*self.prefix, *argv]
        try:
            proc = subprocess.run(full, input=stdin, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendError(f"cannot run {argv[0]} on the KVM host: {exc}",
                               f"install {argv[0]} there, or set host_exec") from None
        if check and proc.returncode != 0:
            raise BackendError(f"{' '.join(argv)}: {proc.stderr.strip() or f'exit status {proc.returncode}'}",
                               "see the KVM host's state; deploy again to retry")
        return proc

    def ip(self, *words: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.run(["ip", *words], check)

    def vsctl(self, *words: str, check: bool = True) -> subprocess.CompletedProcess:
        return self.run(["ovs-vsctl", "--timeout=30", *words], check)

    # --- reading -----------------------------------------------------------------------------------

    def listing(self, need_ovs: bool) -> Listing:
        out = Listing()
        links = json.loads(self.ip("-j", "-d", "link", "show").stdout or "[]")
        for link in links:
            out.links[link["ifname"]] = link
            alias = (link.get("ifalias") or "").split()
            if len(alias) == 3 and alias[0] == ALIAS:
                out.marks[alias[2]] = alias[1]
        for line in self.ip("netns", "list").stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith(NS_PREFIX):
                out.namespaces.append(name)
                lo = self.ip("-n", name, "-j", "link", "show", "lo", check=False)
                alias = (json.loads(lo.stdout or "[{}]")[0].get("ifalias") or "").split() if lo.returncode == 0 else []
                if len(alias) == 3 and alias[0] == ALIAS:
                    out.marks[alias[2]] = alias[1]
        proc = self.run(["ovs-vsctl", "--timeout=5", "-f", "json", "--columns=name,external_ids", "list", "Bridge"],
                        check=False) if need_ovs or self._has_ovs() else None
        if proc is not None and proc.returncode == 0:
            out.ovs_ok = True
            for name, ids in json.loads(proc.stdout)["data"]:
                ext = dict(ids[1]) if isinstance(ids, list) and ids[0] == "map" else {}
                out.ovs[name] = ext
                if "vnetbench-key" in ext:
                    out.marks[ext["vnetbench-key"]] = ext.get("vnetbench-mark", "")
        return out

    def _has_ovs(self) -> bool:
        return self.run(["sh", "-c", "command -v ovs-vsctl"], check=False).returncode == 0

    def ours(self, listing: Listing, tag: str | None) -> tuple[list[str], list[str], list[str]]:
        """Names (links, namespaces, OVS bridges) that carry vnetbench's names, of one design or all."""
        def mine(t: str) -> bool:
            return tag is None or t == tag
        links = [n for n in listing.links if (m := IFACE.match(n)) and mine(m.group(1))]
        spaces = [n for n in listing.namespaces if mine(n[len(NS_PREFIX):len(NS_PREFIX) + 6])]
        bridges = [n for n, ids in listing.ovs.items() if "vnetbench-design" in ids and (m := IFACE.match(n))
                   and mine(m.group(1))]
        return links, spaces, bridges

    # --- building ----------------------------------------------------------------------------------

    def mark(self, dev: str, mark: str, key: str, ns: str | None = None) -> None:
        self.ip(*(["-n", ns] if ns else []), "link", "set", dev, "alias", f"{ALIAS} {mark} {key}")

    def bridge(self, spec: dict[str, Any], mark: str, key: str) -> None:
        name = spec["bridge"]
        self.ip("link", "del", name, check=False)
        self.ip("link", "add", name, "type", "bridge")
        self.ip("link", "set", name, "mtu", str(spec["mtu"]), "up")
        self.mark(name, mark, key)

    def ovs_bridge(self, spec: dict[str, Any], mark: str, key: str, design_id: str, datapath: str) -> None:
        name = spec["bridge"]
        self.vsctl("--if-exists", "del-br", name)
        self.vsctl("add-br", name, "--", "set", "bridge", name, f"datapath_type={datapath}",
                   f"external_ids:vnetbench-design={json.dumps(design_id)}",
                   f"external_ids:vnetbench-key={json.dumps(key)}", f"external_ids:vnetbench-mark={mark}")
        self.ip("link", "set", name, "up", check=False)

    def fresh_ns(self, ns: str) -> None:
        """An empty namespace ``ns`` (one left over from an interrupted deploy is replaced)."""
        self.ip("netns", "del", ns, check=False)
        self.ip("netns", "add", ns)
        self.ip("-n", ns, "link", "set", "lo", "up")

    def pswitch(self, spec: dict[str, Any], mark: str, key: str) -> None:
        ns = spec["ns"]
        self.fresh_ns(ns)
        for vlan in spec["vlans"]:
            self.ip("-n", ns, "link", "add", f"v{vlan}", "type", "bridge")
            self.ip("-n", ns, "link", "set", f"v{vlan}", "up")
        self.mark("lo", mark, key, ns)

    def phost(self, spec: dict[str, Any], mark: str, key: str) -> None:
        ns = spec["ns"]
        self.fresh_ns(ns)
        for nic in spec["nics"]:
            self.ip("-n", ns, "link", "add", nic["name"], "type", "veth", "peer", "name", nic["ps_if"], "netns",
                    nic["ps_ns"])
            self.ip("-n", ns, "link", "set", nic["name"], "address", nic["mac"], "up")
            if nic["addr"]:
                self.ip("-n", ns, "addr", "add", nic["addr"], "dev", nic["name"])
            self.ip("-n", nic["ps_ns"], "link", "set", nic["ps_if"], "master", nic["ps_bridge"], "up")
        if spec["gateway"]:
            self.ip("-n", ns, "route", "add", "default", "via", spec["gateway"])
        self.mark("lo", mark, key, ns)

    def attach(self, dev: str, attach: dict[str, Any]) -> None:
        if attach["kind"] == "bridge":
            self.ip("link", "set", dev, "master", attach["bridge"], "up")
        elif attach["kind"] == "ovs":
            tag = attach.get("tag")
            self.vsctl("--may-exist", "add-port", attach["bridge"], dev,
                       *(["--", "set", "port", dev, f"tag={tag}"] if tag is not None else []))
            self.ip("link", "set", dev, "up")
        else:
            self.ip("link", "set", dev, "up")

    def pnic(self, spec: dict[str, Any], mark: str, key: str) -> None:
        self.delete_pnic(spec)
        if spec["real"]:
            for wire in spec["wires"]:
                dev = wire["host_if"]
                if dev != wire["dev"]:
                    vlan = dev.rsplit(".", 1)[1]
                    self.ip("link", "add", "link", wire["dev"], "name", dev, "type", "vlan", "id", vlan)
                    self.mark(dev, mark, key)
                self.attach(dev, wire["attach"])
            return
        members = []
        for wire in spec["wires"]:
            ns = wire["ps_ns"]
            self.ip("link", "add", wire["host_if"], "type", "veth", "peer", "name", wire["ps_if"], "netns", ns)
            self.ip("link", "set", wire["host_if"], "mtu", str(wire["mtu"]))
            self.ip("-n", ns, "link", "set", wire["ps_if"], "master", wire["ps_bridge"], "up")
            if wire["hairpin"]:
                self.ip("-n", ns, "link", "set", wire["ps_if"], "type", "bridge_slave", "hairpin", "on")
            self.attach(wire["host_if"], wire["attach"])
            members.append((None, wire["host_if"]))
            members.append((ns, wire["ps_if"]))
        ps_ns = spec["wires"][0]["ps_ns"]
        self._shaper(None, spec["ifb_host"], spec["rate_mbit"], [m for ns, m in members if ns is None])
        self._shaper(ps_ns, spec["ifb_ps"], spec["rate_mbit"], [m for ns, m in members if ns is not None])
        self.mark(spec["ifb_host"], mark, key)

    def _shaper(self, ns: str | None, ifb: str, rate: int, members: list[str]) -> None:
        """All of a pNIC's veths (one direction) share one ifb whose tbf runs at the pNIC's speed."""
        n = ["-n", ns] if ns else []
        self.ip(*n, "link", "add", ifb, "type", "ifb")
        self.ip(*n, "link", "set", ifb, "up")
        for words in shaper_commands(ifb, rate, members):
            self.run(["tc", *n, *words])

    def patch(self, spec: dict[str, Any], mark: str, key: str) -> None:
        a, b = spec["a"], spec["b"]
        self.delete_patch(spec)
        if spec["ovs_patch"]:
            for me, peer in ((a, b), (b, a)):
                self.vsctl("add-port", me["bridge"], me["if"], "--", "set", "interface", me["if"], "type=patch",
                           f"options:peer={peer['if']}", f"external_ids:vnetbench-key={json.dumps(key)}",
                           f"external_ids:vnetbench-mark={mark}")
            return
        self.ip("link", "add", a["if"], "type", "veth", "peer", "name", b["if"])
        for end in (a, b):
            self.attach(end["if"], {"kind": end["kind"], "bridge": end["bridge"]})
        self.mark(a["if"], mark, key)

    # --- removing (tolerant: what is gone already is fine) -------------------------------------------

    def delete_bridge(self, spec: dict[str, Any]) -> None:
        self.ip("link", "del", spec["bridge"], check=False)

    def delete_ovs(self, spec: dict[str, Any]) -> None:
        self.vsctl("--if-exists", "del-br", spec["bridge"], check=False)

    def delete_pswitch(self, spec: dict[str, Any]) -> None:
        self.ip("netns", "del", spec["ns"], check=False)

    delete_phost = delete_pswitch

    def delete_pnic(self, spec: dict[str, Any]) -> None:
        for wire in spec["wires"]:
            if wire["attach"]["kind"] == "ovs":
                self.vsctl("--if-exists", "del-port", wire["host_if"], check=False)
            if not spec["real"] or wire["host_if"] != wire.get("dev"):
                self.ip("link", "del", wire["host_if"], check=False)
            elif wire["attach"]["kind"] == "bridge":
                self.ip("link", "set", wire["host_if"], "nomaster", check=False)
        if not spec["real"]:
            self.ip("link", "del", spec["ifb_host"], check=False)
            self.ip("-n", spec["wires"][0]["ps_ns"], "link", "del", spec["ifb_ps"], check=False)

    def delete_patch(self, spec: dict[str, Any]) -> None:
        for end in (spec["a"], spec["b"]):
            if end["kind"] == "ovs":
                self.vsctl("--if-exists", "del-port", end["if"], check=False)
        self.ip("link", "del", spec["a"]["if"], check=False)

    def delete_leftovers(self, links: list[str], spaces: list[str], bridges: list[str]) -> None:
        for name in bridges:
            self.vsctl("--if-exists", "del-br", name, check=False)
        for name in links:
            self.ip("link", "del", name, check=False)
        for name in spaces:
            self.ip("netns", "del", name, check=False)
