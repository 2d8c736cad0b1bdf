"""Host-side plumbing libvirt does not do: bridges, Open vSwitch bridges, the emulated pNICs and physical
switches, patches. Commands run on the KVM host through the ``host_exec`` prefix (nothing: this machine).

Ownership comes from a mark, never from a name: anyone may create a bridge called ``vb496e5c505e2``.
Every link this module creates carries the alias ``vnetbench part <key>`` from the command that creates it
(one ``sh -c`` on the host, so a killed vnetbench cannot leave it half-made), and the object that says a
whole want is built gets ``vnetbench <mark> <key>`` last: a Linux bridge, a pNIC's ifb, a patch veth, the
loopback of a physical switch's namespace. An OVS bridge carries the external ids ``vnetbench-design``,
``vnetbench-key`` and ``vnetbench-mark``, an OVS port vnetbench added ``vnetbench-key`` and ``vnetbench-mark``,
written in the ``add-br`` / ``add-port`` call itself. Something in the way that carries no such mark is a
``Foreign`` object: it is reported, never deleted or changed. ``listing()`` reads all of it in a few commands.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from typing import Any

from vnetbench.backends import BackendError
from vnetbench.backends.planning import design_tag
from vnetbench.backends.shaper import shaper_commands

from .config import NS_PREFIX
from .pvlan_flows import flow_marks

ALIAS = "vnetbench"
PART = "part"                  # the mark word of a link that is ours but is not the want's completion mark
_KEY_TAG = re.compile(r"^[a-z]+/(?:vnb-|vnk|v[a-z])([0-9a-f]{6})")


class Foreign(BackendError):
    """An object vnetbench would create or remove exists but carries no vnetbench mark: it is left alone."""

    def __init__(self, what: str, remove: str) -> None:
        super().__init__(f"conflict: {what} exists that vnetbench did not make; it is left alone",
                         f"remove it with `{remove}` if it is not needed, then deploy again")


def owner_key(alias: str | None) -> str | None:
    """The want key an interface alias names when vnetbench made the interface, else None."""
    words = (alias or "").split()
    return words[2] if len(words) == 3 and words[0] == ALIAS else None


def key_tag(key: str) -> str | None:
    """The design tag inside a want key (``bridge/vnb-496e5c-br0`` -> ``496e5c``)."""
    match = _KEY_TAG.match(key)
    return match.group(1) if match else None


@dataclass
class Listing:
    """What a host holds that this module could have made: {key: mark} plus the raw objects by kind."""

    marks: dict[str, str] = field(default_factory=dict)
    links: dict[str, dict[str, Any]] = field(default_factory=dict)     # name -> ip -j link entry
    namespaces: list[str] = field(default_factory=list)
    ns_owner: dict[str, str] = field(default_factory=dict)             # namespace -> key its loopback names
    ovs: dict[str, dict[str, str]] = field(default_factory=dict)       # bridge -> external ids
    ports: dict[str, dict[str, str]] = field(default_factory=dict)     # OVS port -> external ids

    def link_owner(self, name: str) -> str | None:
        link = self.links.get(name)
        return owner_key(link.get("ifalias")) if link else None

    def foreign(self, kind: str, name: str, design_id: str) -> str | None:
        """Why ``name`` (a ``link``, ``ns`` or ``ovs`` bridge the design creates) is in the way, or None when it
        is absent or carries this design's mark (under any key: a renamed switch keeps its bridge)."""
        tag = design_tag(design_id)
        if kind == "ns":
            if name in self.namespaces and key_tag(self.ns_owner.get(name) or "") != tag:
                return str(Foreign(f"a network namespace {name}", f"ip netns del {name}"))
            return None
        if kind == "ovs" and name in self.ovs:
            if self.ovs[name].get("vnetbench-design") != design_id:
                return str(Foreign(f"an Open vSwitch bridge {name}", f"ovs-vsctl del-br {name}"))
            return None
        if kind == "link" and name in self.ovs:
            return str(Foreign(f"an Open vSwitch bridge {name}", f"ovs-vsctl del-br {name}"))
        if name in self.links and key_tag(self.link_owner(name) or "") != tag:
            return str(Foreign(f"a network interface {name}", f"ip link del {name}"))
        return None


def vlan_columns(vlan: dict[str, Any] | None) -> list[str]:
    """An OVS trunk port's columns for a ``desired_fabric.filtering_port`` VLAN configuration: its VLANs, and its
    native VLAN sent untagged or tagged (none: untagged frames join VLAN 0, which it does not carry)."""
    if not vlan:
        return []
    cols = [f"trunks={','.join(map(str, vlan['tags']))}"]
    if vlan["native"] is None:
        return [*cols, "vlan_mode=trunk"]
    return [*cols, f"tag={vlan['native']}", f"vlan_mode=native-{vlan['native_mode']}"]


def host_command(prefix: list[str], argv: list[str]) -> list[str]:
    """The full command line for ``argv`` on the host. ssh joins the words after the destination into one
    string for the remote shell, so behind ssh the argv goes quoted word by word (an alias with spaces stays
    one word); other prefixes (nsenter, sudo) exec the argv as it is."""
    if any(word.rsplit("/", 1)[-1] == "ssh" for word in prefix):
        return [*prefix, shlex.join(argv)]
    return [*prefix, *argv]


class HostShell:
    """Runs commands on one KVM host; ``prefix`` is ``host_exec`` split into words."""

    def __init__(self, prefix: list[str]) -> None:
        self.prefix = prefix

    def command(self, argv: list[str]) -> list[str]:
        return host_command(self.prefix, argv)

    def run(self, argv: list[str], check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
        try:
            proc = subprocess.run(self.command(argv), input=stdin, capture_output=True, text=True, timeout=120)
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

    def sh(self, *commands: list[str]) -> None:
        """Several commands in one shell on the host, stopping at the first that fails: a link is made and
        marked by one process, which finishes even when vnetbench is killed meanwhile."""
        self.run(["sh", "-c", " && ".join(shlex.join(c) for c in commands)])

    # --- reading -----------------------------------------------------------------------------------

    def listing(self, need_ovs: bool) -> Listing:
        out = Listing()
        links = json.loads(self.ip("-j", "-d", "link", "show").stdout or "[]")
        for link in links:
            out.links[link["ifname"]] = link
            alias = (link.get("ifalias") or "").split()
            if len(alias) == 3 and alias[0] == ALIAS and alias[1] != PART:
                out.marks[alias[2]] = alias[1]
        for line in self.ip("netns", "list").stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith(NS_PREFIX):
                out.namespaces.append(name)
                alias = self._alias("lo", name)
                if owner_key(alias) is not None:
                    out.ns_owner[name] = owner_key(alias) or ""
                    if alias.split()[1] != PART:
                        out.marks[alias.split()[2]] = alias.split()[1]
        if need_ovs or self._has_ovs():
            for table, into in (("Bridge", out.ovs), ("Port", out.ports)):
                proc = self.run(["ovs-vsctl", "--timeout=5", "-f", "json", "--columns=name,external_ids", "list",
                                 table], check=False)
                if proc.returncode != 0:
                    break
                for name, ids in json.loads(proc.stdout)["data"]:
                    ext = dict(ids[1]) if isinstance(ids, list) and ids[0] == "map" else {}
                    into[name] = ext
                    if "vnetbench-key" in ext and ext.get("vnetbench-mark", PART) != PART:
                        out.marks.setdefault(ext["vnetbench-key"], ext["vnetbench-mark"])
            ours = [name for name, ids in out.ovs.items() if "vnetbench-design" in ids]
            out.marks.update(flow_marks(self, ours))           # private VLAN flows (pvlan_flows)
        return out

    def _has_ovs(self) -> bool:
        return self.run(["sh", "-c", "command -v ovs-vsctl"], check=False).returncode == 0

    def _alias(self, dev: str, ns: str | None = None) -> str | None:
        """The alias of ``dev`` (empty: none), or None when there is no such device."""
        proc = self.ip(*(["-n", ns] if ns else []), "-j", "link", "show", "dev", dev, check=False)
        if proc.returncode != 0:
            return None
        return (json.loads(proc.stdout or "[{}]") or [{}])[0].get("ifalias") or ""

    def _ovs_ids(self, table: str, name: str) -> dict[str, str] | None:
        """External ids of an OVS bridge or port, or None when there is none of that name."""
        proc = self.run(["ovs-vsctl", "--timeout=30", "-f", "json", "--columns=external_ids", "find", table,
                         f"name={json.dumps(name)}"], check=False)
        if proc.returncode != 0 or not json.loads(proc.stdout or '{"data": []}')["data"]:
            return None
        ids = json.loads(proc.stdout)["data"][0][0]
        return dict(ids[1]) if isinstance(ids, list) and ids[0] == "map" else {}

    def ours(self, listing: Listing, tag: str | None) -> tuple[list[str], list[str], list[str]]:
        """Names (links, namespaces, OVS bridges) that carry vnetbench's mark, of one design's tag or all."""
        def mine(key: str | None) -> bool:
            return key is not None and (tag is None or key_tag(key) == tag)
        links = [n for n in listing.links if mine(listing.link_owner(n))]
        spaces = [n for n in listing.namespaces if mine(listing.ns_owner.get(n))]
        bridges = [n for n, ids in listing.ovs.items()
                   if "vnetbench-design" in ids and mine(ids.get("vnetbench-key"))]
        return links, spaces, bridges

    # --- building ----------------------------------------------------------------------------------

    @staticmethod
    def _alias_words(mark: str, key: str) -> str:
        return f"{ALIAS} {mark} {key}"

    def mark(self, dev: str, mark: str, key: str, ns: str | None = None) -> None:
        self.ip(*(["-n", ns] if ns else []), "link", "set", dev, "alias", self._alias_words(mark, key))

    def add_link(self, key: str, name: str, *spec: str, ns: str | None = None) -> None:
        """``ip link add NAME SPEC...`` and its ``part`` alias in one host process."""
        n = ["-n", ns] if ns else []
        self.sh(["ip", *n, "link", "add", name, *spec],
                ["ip", *n, "link", "set", name, "alias", self._alias_words(PART, key)])

    def bridge(self, spec: dict[str, Any], mark: str, key: str) -> None:
        name = spec["bridge"]
        self.drop_link(name)
        self.add_link(key, name, "type", "bridge")
        self.ip("link", "set", name, "mtu", str(spec["mtu"]), "up")
        self.mark(name, mark, key)

    def ovs_bridge(self, spec: dict[str, Any], mark: str, key: str, design_id: str, datapath: str) -> None:
        name = spec["bridge"]
        self.drop_ovs(name)
        self.vsctl("add-br", name, "--", "set", "bridge", name, f"datapath_type={datapath}",
                   f"external_ids:vnetbench-design={json.dumps(design_id)}",
                   f"external_ids:vnetbench-key={json.dumps(key)}", f"external_ids:vnetbench-mark={mark}")
        self.ip("link", "set", name, "up", check=False)

    def fresh_ns(self, ns: str, key: str) -> None:
        """An empty namespace ``ns``, marked ``part`` at once (ours, left over from an interrupted deploy,
        is replaced; anyone else's is refused)."""
        self.drop_ns(ns)
        self.sh(["ip", "netns", "add", ns], ["ip", "-n", ns, "link", "set", "lo", "alias",
                                            self._alias_words(PART, key)])
        self.ip("-n", ns, "link", "set", "lo", "up")

    def pswitch(self, spec: dict[str, Any], mark: str, key: str) -> None:
        ns = spec["ns"]
        self.fresh_ns(ns, key)
        for vlan in spec["vlans"]:
            self.ip("-n", ns, "link", "add", f"v{vlan}", "type", "bridge")
            self.ip("-n", ns, "link", "set", f"v{vlan}", "up")
        self.mark("lo", mark, key, ns)

    def phost(self, spec: dict[str, Any], mark: str, key: str) -> None:
        """An emulated physical host: a namespace whose NICs are veths into their physical switch VLAN bridges.
        IPv6 is off unless it holds an IPv6 address; then it is quiet (no duplicate-address probe, no router
        advertisement taken or solicited), so its first packet leaves at once, as the lab's namespaces do."""
        ns = spec["ns"]
        self.fresh_ns(ns, key)
        quiet = [f"net.ipv6.conf.{c}.{k}" for c in ("default", "all")
                 for k in ("accept_dad=0", "accept_ra=0", "router_solicitations=0")] if spec["ipv6"] else \
            ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
        self.run(["ip", "netns", "exec", ns, "sysctl", "-qw", *quiet])
        for nic in spec["nics"]:
            self.ip("-n", ns, "link", "add", nic["name"], "type", "veth", "peer", "name", nic["ps_if"], "netns",
                    nic["ps_ns"])
            self.ip("-n", ns, "link", "set", nic["name"], "address", nic["mac"], "up")
            for addr in nic["addrs"]:
                self.ip("-n", ns, "addr", "add", addr, "dev", nic["name"], *(["nodad"] if ":" in addr else []))
            self.ip("-n", nic["ps_ns"], "link", "set", nic["ps_if"], "master", nic["ps_bridge"], "up")
        for route in spec["routes"]:          # [prefix, next hop] or, for a link-local hop, [prefix, hop, dev]
            self.ip("-n", ns, "route", "add", route[0], "via", route[1], *(["dev", route[2]] if len(route) > 2 else []))
        self.mark("lo", mark, key, ns)

    def attach(self, dev: str, attach: dict[str, Any], key: str, mark: str) -> None:
        if attach["kind"] == "bridge":
            self.ip("link", "set", dev, "master", attach["bridge"], "up")
        elif attach["kind"] == "ovs":
            tag = attach.get("tag")
            self.vsctl("--may-exist", "add-port", attach["bridge"], dev, "--", "set", "port", dev,
                       *([f"tag={tag}"] if tag is not None else []), *vlan_columns(attach.get("vlan")),
                       f"external_ids:vnetbench-key={json.dumps(key)}",
                       f"external_ids:vnetbench-mark={mark}")
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
                    self.add_link(key, dev, "link", wire["dev"], "type", "vlan", "id", vlan)
                    self.mark(dev, mark, key)
                elif self._alias(dev) is None:
                    raise BackendError(f"the host has no network interface {dev} (pnics=real uses the host's own "
                                       "pNICs under their design names)", "rename the pNIC in the design, or use "
                                       "pnics=emulate")
                self.attach(dev, wire["attach"], key, mark)
            return
        members = []
        for wire in spec["wires"]:
            ns = wire["ps_ns"]
            self.add_link(key, wire["host_if"], "type", "veth", "peer", "name", wire["ps_if"], "netns", ns)
            self.ip("link", "set", wire["host_if"], "mtu", str(wire["mtu"]))
            self.ip("-n", ns, "link", "set", wire["ps_if"], "master", wire["ps_bridge"], "up")
            if wire["hairpin"]:
                self.ip("-n", ns, "link", "set", wire["ps_if"], "type", "bridge_slave", "hairpin", "on")
            self.attach(wire["host_if"], wire["attach"], key, PART)
            members.append((None, wire["host_if"]))
            members.append((ns, wire["ps_if"]))
        ps_ns = spec["wires"][0]["ps_ns"]
        self._shaper(key, None, spec["ifb_host"], spec["rate_mbit"], [m for ns, m in members if ns is None])
        self._shaper(key, ps_ns, spec["ifb_ps"], spec["rate_mbit"], [m for ns, m in members if ns is not None])
        self.mark(spec["ifb_host"], mark, key)

    def _shaper(self, key: str, ns: str | None, ifb: str, rate: int, members: list[str]) -> None:
        """All of a pNIC's veths (one direction) share one ifb whose tbf runs at the pNIC's speed."""
        n = ["-n", ns] if ns else []
        self.add_link(key, ifb, "type", "ifb", ns=ns)
        self.ip(*n, "link", "set", ifb, "up")
        for words in shaper_commands(ifb, rate, members):
            self.run(["tc", *n, *words])

    def patch(self, spec: dict[str, Any], mark: str, key: str) -> None:
        a, b = spec["a"], spec["b"]
        self.delete_patch(spec)
        if spec["ovs_patch"]:
            for me, peer in ((a, b), (b, a)):
                self.vsctl("add-port", me["bridge"], me["if"], "--", "set", "interface", me["if"], "type=patch",
                           f"options:peer={peer['if']}", "--", "set", "port", me["if"],
                           f"external_ids:vnetbench-key={json.dumps(key)}", f"external_ids:vnetbench-mark={mark}")
            return
        self.sh(["ip", "link", "add", a["if"], "type", "veth", "peer", "name", b["if"]],
                ["ip", "link", "set", a["if"], "alias", self._alias_words(PART, key)],
                ["ip", "link", "set", b["if"], "alias", self._alias_words(PART, key)])
        for end in (a, b):
            self.attach(end["if"], {"kind": end["kind"], "bridge": end["bridge"]}, key, PART)
        self.mark(a["if"], mark, key)

    def bond(self, spec: dict[str, Any], mark: str, key: str) -> None:
        """An OVS bond of the pNIC wires ``members`` (made, unattached, by their pNIC wants), marked like a port
        vnetbench adds; ``bond-primary`` keeps the first member active in active-backup mode."""
        self.drop_port(spec["name"])
        name = spec["name"]
        self.vsctl("add-bond", spec["bridge"], name, *spec["members"], "--", "set", "port", name,
                   *([f"tag={spec['tag']}"] if spec["tag"] is not None else []), *vlan_columns(spec.get("vlan")),
                   f"bond_mode={spec['mode']}",
                   f"lacp={spec['lacp']}", f"other_config:bond-primary={spec['members'][0]}",
                   f"external_ids:vnetbench-key={json.dumps(key)}", f"external_ids:vnetbench-mark={mark}")
        for member in spec["members"]:         # as a port vnetbench adds (a real pNIC's want may have nothing to do)
            self.ip("link", "set", member, "up")

    def delete_bond(self, spec: dict[str, Any]) -> None:
        self.drop_port(spec["name"])

    # --- removing: what is gone already is fine; what vnetbench did not make raises ``Foreign`` --------

    def drop_link(self, name: str, ns: str | None = None) -> None:
        alias = self._alias(name, ns)
        if alias is None:
            return
        if owner_key(alias) is None:
            where = f"ip -n {ns} link del {name}" if ns else f"ip link del {name}"
            raise Foreign(f"a network interface {name}" + (f" in namespace {ns}" if ns else ""), where)
        self.ip(*(["-n", ns] if ns else []), "link", "del", name, check=False)

    def drop_ovs(self, name: str) -> None:
        ids = self._ovs_ids("bridge", name)
        if ids is None:
            return
        if "vnetbench-design" not in ids:
            raise Foreign(f"an Open vSwitch bridge {name}", f"ovs-vsctl del-br {name}")
        self.vsctl("--if-exists", "del-br", name, check=False)

    def drop_port(self, name: str) -> None:
        ids = self._ovs_ids("port", name)
        if ids is None:
            return
        if "vnetbench-key" not in ids:
            raise Foreign(f"an Open vSwitch port {name}", f"ovs-vsctl del-port {name}")
        self.vsctl("--if-exists", "del-port", name, check=False)

    def drop_ns(self, ns: str) -> None:
        if ns not in self.ip("netns", "list").stdout.split():
            return
        if owner_key(self._alias("lo", ns)) is None:
            raise Foreign(f"a network namespace {ns}", f"ip netns del {ns}")
        self.ip("netns", "del", ns, check=False)

    def delete_bridge(self, spec: dict[str, Any]) -> None:
        self.drop_link(spec["bridge"])

    def delete_ovs(self, spec: dict[str, Any]) -> None:
        self.drop_ovs(spec["bridge"])

    def delete_pswitch(self, spec: dict[str, Any]) -> None:
        self.drop_ns(spec["ns"])

    delete_phost = delete_pswitch

    def delete_pnic(self, spec: dict[str, Any]) -> None:
        for wire in spec["wires"]:
            dev, real_dev = wire["host_if"], spec["real"] and wire["host_if"] == wire.get("dev")
            if wire["attach"]["kind"] == "ovs":
                self.drop_port(dev)
            if not real_dev:
                self.drop_link(dev)
            elif wire["attach"]["kind"] == "bridge":
                link = json.loads(self.ip("-j", "link", "show", "dev", dev, check=False).stdout or "[{}]")[0]
                if link.get("master") == wire["attach"]["bridge"]:        # the host's pNIC: only let go of it
                    self.ip("link", "set", dev, "nomaster", check=False)
        if not spec["real"]:
            self.drop_link(spec["ifb_host"])
            if spec["wires"][0]["ps_ns"] in self.ip("netns", "list").stdout.split():
                self.drop_link(spec["ifb_ps"], spec["wires"][0]["ps_ns"])

    def delete_patch(self, spec: dict[str, Any]) -> None:
        for end in (spec["a"], spec["b"]):
            if end["kind"] == "ovs" or spec["ovs_patch"]:
                self.drop_port(end["if"])
        if not spec["ovs_patch"]:
            self.drop_link(spec["a"]["if"])
            self.drop_link(spec["b"]["if"])

    def delete_leftovers(self, links: list[str], spaces: list[str], bridges: list[str]) -> None:
        for name in bridges:
            self.drop_ovs(name)
        for name in links:
            self.drop_link(name)
        for name in spaces:
            self.drop_ns(name)
