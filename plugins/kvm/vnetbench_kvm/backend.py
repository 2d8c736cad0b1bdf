"""``KvmBackend``: the backend contract over libvirt (one connection per design host's URI) and the host-side
plumbing libvirt does not do (``hostside``).

``plan`` compares the objects the design needs (``desired``) with the marked objects the hosts hold and
the names only vnetbench gives; what carries the design's tag but is no longer wanted is deleted, so a
deploy killed half-way is cleaned by the next plan. ``apply`` builds in phases (physical side, switches,
pNICs, macvtaps and patches, guests), boots the guests together and waits until each answers on its command
channel, then loads firewall rules and marks the guest ready.
"""

from __future__ import annotations

import base64
import shlex
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any

from vnetbench.backends import (Backend, BackendError, BadSetting, CancelToken, ChangeResult,
                                DeployState, Deployment, Endpoint, MissingExtra, ObjectState, Op, Plan, PlannedChange,
                                ProgressFn, Unsupported)
from vnetbench.backends.locking import Busy, LockFile, private_dir
from vnetbench.backends.manifest import Manifest
from vnetbench.backends.planning import Want, design_tag, rebuild_dependents, short
from vnetbench.model import Index, Topology

from . import channel, guestimage, pvlan_flows
from .config import Settings
from .desired import PHASE, Boot, Desired, desired
from .hostside import Foreign, HostShell, Listing, key_tag
from .hostprobe import NamespaceEndpoint
from .importer import import_hosts
from .xml import Mark, domain_xml, mark_xml, network_xml, read_mark

#: How long a deploy or teardown waits for another one of the same design before saying it is running.
LOCK_WAIT_S = 3.0
BOOT_TIMEOUT = 240.0           # TCG guests on a busy two-core machine boot in 6-60 s
LIBVIRT_KINDS = ("domain", "bridge", "ovs", "macvtap")
#: Host plumbing only: nothing to build behind the test driver.
HOST_KINDS = ("pswitch", "pnic", "patch", "phost", "bond", "flows")


def _libvirt() -> Any:
    try:
        import libvirt
    except ImportError:
        raise MissingExtra("libvirt") from None
    libvirt.registerErrorHandler(lambda _ctx, _err: None, None)      # errors arrive as exceptions only
    return libvirt


@dataclass
class Site:
    """One libvirt connection and the host-side shell that goes with it."""

    uri: str
    shell: HostShell
    conn: Any = None

    @property
    def test_driver(self) -> bool:
        return self.uri.startswith("test:")


@dataclass
class Held:
    """What one site holds: marks of libvirt objects and of host objects, and names to sweep."""

    domains: dict[str, tuple[Mark | None, bool]]       # name -> (mark, running)
    networks: dict[str, tuple[Mark | None, bool]]      # name -> (mark, active)
    host: Listing


#: name, title, capabilities and settings, from the manifest that discovery reads without importing this
MANIFEST = Manifest.of(__file__)


class KvmBackend(Backend):
    name = MANIFEST.name
    title = MANIFEST.title
    capabilities = MANIFEST.capabilities
    settings_fields = MANIFEST.settings_fields
    probe_capabilities = MANIFEST.probes

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(settings)
        self.config = Settings(self.settings)
        self.config.check()                  # a typo or a bad value fails here (exit 2), before any connection
        self.sites: dict[tuple[str, tuple[str, ...]], Site] = {}
        self.shell_factory: Callable[[list[str]], HostShell] = HostShell
        self._boot: dict[str, Boot] = {}

    # --- connections -------------------------------------------------------------------------------

    def connect(self) -> None:
        _libvirt()
        for host in self._setting_hosts():
            self._open(self.site(host))

    def close(self) -> None:
        for site in self.sites.values():
            if site.conn is not None:
                try:
                    site.conn.close()
                except Exception:  # noqa: BLE001 - closing a connection that may be gone
                    pass
                site.conn = None
        self.sites.clear()

    def _setting_hosts(self) -> list[str]:
        """Host names the settings mention (``*`` for the default)."""
        return self.config.hosts()

    def site(self, host_name: str) -> Site:
        uri, prefix = self.config.uri(host_name), tuple(self.config.host_exec(host_name))
        key = (uri, prefix)
        if key not in self.sites:
            self.sites[key] = Site(uri, self.shell_factory(list(prefix)))
        return self.sites[key]

    def _open(self, site: Site) -> Any:
        libvirt = _libvirt()
        if site.conn is None:
            try:
                site.conn = libvirt.open(site.uri)
            except libvirt.libvirtError as exc:
                raise BackendError(f"cannot connect to libvirt at {site.uri}: {exc.get_error_message()}",
                                   "check the uri setting and that libvirtd runs there") from None
        return site.conn

    def opener(self, site: Site) -> Callable[[], Any]:
        libvirt = _libvirt()
        return lambda: libvirt.open(site.uri)

    def _host_site(self, design: Topology, host_id: str) -> Site:
        host = Index(design).get(host_id)
        return self.site(host.name if host is not None else "*")

    # --- what the design needs --------------------------------------------------------------------------

    def boot(self, design: Topology) -> dict[str, Boot]:
        """How guests boot on each KVM host: image, machine, accelerator (asked of the host when auto)."""
        out = {}
        for host in design.hosts:
            site = self.site(host.name)
            kernel, initrd = self._image(site)
            out[host.id] = Boot(kernel, initrd, self.config.machine, self._accel(site), self.config.memory_mb)
        return out

    def _image(self, site: Site) -> tuple[str, str]:
        """Where the guest kernel and initrd are: named by ``image``, or the probe guest's cache (``auto``;
        nothing is built here: planning has no side effects, ``apply`` builds it first)."""
        paths = self.config.image_paths
        if paths is not None:
            return paths
        img = guestimage.image()
        return str(img.kernel), str(img.initrd)

    def _check_image(self, site: Site) -> None:
        """``BadSetting`` when the guest kernel or initrd is not readable on the host (before anything is built)."""
        if site.test_driver:
            return
        for path in self._image(site):
            if site.shell.run(["test", "-r", path], check=False).returncode != 0:
                raise BadSetting(f"the guest image file {path} is not readable on the KVM host ({site.uri})",
                                 "set image=KERNEL,INITRD to files there, or image=auto to use the probe guest "
                                 "(on a remote host: copy ~/.cache/vnetbench/guest there under the same path)")

    def _accel(self, site: Site) -> str:
        if self.config.accel != "auto":
            return self.config.accel
        if site.test_driver:
            return "qemu"
        libvirt = _libvirt()
        try:
            self._open(site).getDomainCapabilities(None, "x86_64", None, "kvm")
            return "kvm"
        except libvirt.libvirtError:
            return "qemu"

    def desired(self, design: Topology, boot: dict[str, Boot] | None = None) -> Desired:
        if boot is None:
            boot = {h.id: Boot("", "") for h in design.hosts}
        return desired(design, boot, self.config.emulate)

    def unsupported(self, design: Topology) -> list[str]:
        reasons = super().unsupported(design)
        reasons += self.desired(design).reasons
        if self.config.emulate and (design.physical_switches or any(h.pnics for h in design.hosts)):
            sites = {(self.config.uri(h.name), tuple(self.config.host_exec(h.name))) for h in design.hosts}
            if len(sites) > 1:
                reasons.append("pnics=emulate joins the hosts through emulated physical switches on one machine, "
                               "but the hosts are on different libvirt hosts; use pnics=real")
        return list(dict.fromkeys(reasons))

    # --- what the hosts hold -----------------------------------------------------------------------------

    def held(self, site: Site, need_ovs: bool) -> Held:
        conn = self._open(site)
        domains = {d.name(): (read_mark(d.XMLDesc(0)), bool(d.isActive())) for d in conn.listAllDomains(0)}
        networks = {n.name(): (read_mark(n.XMLDesc(0)), bool(n.isActive())) for n in conn.listAllNetworks(0)}
        host = Listing() if site.test_driver else site.shell.listing(need_ovs)
        return Held(domains, networks, host)

    @staticmethod
    def current_mark(want: Want, held: Held) -> str | None:
        """The mark the host holds for ``want`` when the object is whole and running, else None."""
        if want.kind == "domain":
            mark, running = held.domains.get(want.spec["name"], (None, False))
            return mark.mark if mark and running and mark.state == "ready" else None
        if want.kind in LIBVIRT_KINDS:
            mark, active = held.networks.get(want.spec["network"], (None, False))
            if not mark or not active:
                return None
            if want.kind == "macvtap" or not held.host.links and not held.host.ovs:
                return mark.mark                           # the test driver: no host side to compare
            return mark.mark if held.host.marks.get(want.key) == mark.mark else None
        if want.kind == "pnic" and want.spec["real"]:
            return want.mark if _attached(want, held.host) else None
        return held.host.marks.get(want.key)

    # --- plan --------------------------------------------------------------------------------------------

    def plan(self, design: Topology) -> Plan:
        reasons = self.unsupported(design)
        if reasons:
            raise Unsupported(reasons)
        with self._locked(design.id):           # says at once when another deploy of this design is running
            pass
        if self.config.image_paths is not None:
            for host in design.hosts:
                self._check_image(self.site(host.name))
        want = self.desired(design, self.boot(design))
        by_site: dict[int, tuple[Site, Held]] = {}
        need_ovs = any(w.kind == "ovs" for w in want.wants.values())
        for host in design.hosts:
            site = self.site(host.name)
            if id(site) not in by_site:
                by_site[id(site)] = (site, self.held(site, need_ovs))
        changes: list[PlannedChange] = []
        for site, held in by_site.values():
            changes += self._sweep(design.id, want, site, held)
        ops: dict[str, tuple[Op, str]] = {}
        conflicts: dict[str, str] = {}
        for key, w in want.wants.items():
            site, held = by_site[id(self._host_site(design, w.host))]
            if site.test_driver and w.kind in HOST_KINDS:
                continue
            why = foreign(design.id, w, held)
            if why:
                conflicts[key] = why
                continue
            now = self.current_mark(w, held)
            if now == w.mark:
                continue
            exists = self._exists(w, held)
            ops[key] = (Op.UPDATE, "changed in the design" if exists else "") if exists else (Op.CREATE, "")
            if exists and w.kind == "domain":
                mark = held.domains[w.spec["name"]][0]
                if mark and mark.mark == w.mark:
                    ops[key] = (Op.UPDATE, "not running, or an earlier apply did not finish it")
        rebuild_dependents(want.wants, ops, rebuild_on=(Op.UPDATE,))   # a conflict blocks only itself
        for key, w in want.wants.items():        # flows name OpenFlow port numbers: any port made anew moves them
            if w.kind == "flows" and key not in ops and any(d in ops for d in w.deps):
                ops[key] = (Op.UPDATE, "its ports are built anew")
        ix = Index(design)
        for key, w in want.wants.items():
            if key in ops or key in conflicts:
                op, why = ops.get(key, (Op.CREATE, conflicts.get(key, "")))
                site = self._host_site(design, w.host)
                data = {"spec": w.spec, "mark": w.mark, "deps": list(w.deps), "site": [site.uri, site.shell.prefix]}
                if key in conflicts:
                    data["conflict"] = conflicts[key]
                if w.kind == "domain":
                    data["role"] = ix.get(w.object_id).role.value
                    data["host"] = ix.get(w.host).name
                changes.append(PlannedChange(op, w.kind, key, w.description + (f": {why}" if why else ""),
                                             w.object_id, data))
        return Plan(self.name, design.id, tuple(changes))

    @staticmethod
    def _exists(w: Want, held: Held) -> bool:
        if w.kind == "domain":
            return w.spec["name"] in held.domains
        if w.kind in LIBVIRT_KINDS:
            return w.spec["network"] in held.networks
        return w.key in held.host.marks

    def _sweep(self, design_id: str, want: Desired | None, site: Site, held: Held,
               why: str = "no longer in the design") -> list[PlannedChange]:
        """Deletions: marked libvirt objects of the design (or of any design) the design no longer has, and
        host objects carrying its tag that nothing wanted names."""
        tag = design_tag(design_id) if design_id else None
        wanted = set(want.wants) if want else set()
        keep_names: set[str] = set()
        if want:
            for w in want.wants.values():
                keep_names |= _names(w)
        out = []
        for table, kind in ((held.domains, "domain"), (held.networks, "network")):
            for name, (mark, _active) in sorted(table.items()):
                if mark is None or (design_id and mark.design != design_id) or mark.key in wanted:
                    continue
                out.append(PlannedChange(Op.DELETE, mark.key.split("/")[0], mark.key,
                                         f"{kind} {name} ({why})", None,
                                         {"libvirt": kind, "name": name, "site": [site.uri, site.shell.prefix]}))
        if not site.test_driver:
            for key in sorted(k for k in held.host.marks if k.startswith("flows/") and k not in wanted):
                if tag is None or key_tag(key) == tag:           # private VLAN flows on a bridge (pvlan_flows)
                    out.append(PlannedChange(Op.DELETE, "flows", key, f"private VLAN flows on {short(key)} ({why})",
                                             None, {"spec": {"bridge": short(key)}, "mark": "",
                                                    "site": [site.uri, site.shell.prefix]}))
            links, spaces, bridges = site.shell.ours(held.host, tag)
            names = [n for n in [*bridges, *links, *spaces] if n not in keep_names]
            if names:
                out.append(PlannedChange(Op.DELETE, "leftover", f"leftover/{site.uri}",
                                         f"host objects ({why}): {', '.join(sorted(names))}", None,
                                         {"bridges": [n for n in bridges if n not in keep_names],
                                          "links": [n for n in links if n not in keep_names],
                                          "spaces": [n for n in spaces if n not in keep_names],
                                          "site": [site.uri, site.shell.prefix]}))
        out.sort(key=lambda c: -PHASE.get(c.kind, 9))
        return out

    # --- apply -------------------------------------------------------------------------------------------

    @contextmanager
    def _locked(self, design_id: str) -> Iterator[None]:
        """Hold the design's lock (the lab's kind): one deploy or teardown of a design at a time on this machine."""
        try:
            lock = LockFile(private_dir() / f"kvm-{design_tag(design_id) if design_id else 'all'}.lock",
                            wait=LOCK_WAIT_S)
        except Busy as busy:
            raise BackendError(f"another deploy or teardown of this design on KVM is running (pid {busy.holder})",
                               "wait for it to finish, then run the command again") from None
        except OSError as exc:
            raise BackendError(f"cannot take the KVM deploy lock: {exc.strerror or exc}",
                               "make the temporary folder writable") from None
        with lock:
            yield

    def apply(self, plan: Plan, progress: ProgressFn | None = None,
              cancel: CancelToken | None = None) -> list[ChangeResult]:
        if plan.empty:
            return []
        with self._locked(plan.design_id):
            return self._apply(plan, progress, cancel)

    def _prepare_image(self, plan: Plan, report: ProgressFn) -> None:
        """Build the probe guest when a guest needs it and the cache lacks it (once, about 25 s, with progress),
        then check every host holds the image: before any change touches a host."""
        sites = {(ch.data["site"][0], tuple(ch.data["site"][1])) for ch in plan.changes
                 if ch.kind == "domain" and ch.op is not Op.DELETE and not ch.data.get("conflict")}
        for uri, prefix in sorted(sites):
            site = self.sites.get((uri, prefix)) or Site(uri, self.shell_factory(list(prefix)))
            if site.test_driver:
                continue
            if self.config.image_paths is None:
                guestimage.ensure_image(log=lambda msg: report(0, len(plan.changes), f"probe guest image: {msg}"))
            self._check_image(site)

    def _apply(self, plan: Plan, progress: ProgressFn | None,
               cancel: CancelToken | None) -> list[ChangeResult]:
        total = len(plan.changes)
        report = progress or (lambda done, all_, msg: None)
        self._prepare_image(plan, report)
        results: dict[int, ChangeResult] = {}
        booting: dict[int, tuple[Site, PlannedChange]] = {}
        failed_keys: set[str] = set()

        def one(i: int) -> None:
            ch = plan.changes[i]
            uri, prefix = ch.data["site"]
            site = self.sites.get((uri, tuple(prefix))) or self.sites.setdefault(
                (uri, tuple(prefix)), Site(uri, self.shell_factory(list(prefix))))
            if ch.data.get("conflict"):             # the reason is in the change's description already
                results[i] = ChangeResult(ch, False, "not applied: in conflict, left alone")
                failed_keys.add(ch.key)
                return
            hit = next((d for d in ch.data.get("deps", ()) if d in failed_keys), None)
            if hit:
                results[i] = ChangeResult(ch, False, f"it needs {hit.split('/', 1)[-1]}, which failed or is in "
                                                     "conflict")
                return
            report(i, total, f"{ch.op.value} {ch.kind} {ch.key.split('/', 1)[-1]}")
            try:
                self._apply_one(plan.design_id, site, ch)
            except Exception as exc:  # noqa: BLE001 - libvirt and host errors: reported per change
                results[i] = ChangeResult(ch, False, exc.message if isinstance(exc, BackendError) else _message(exc))
                failed_keys.add(ch.key)
                return
            if ch.kind == "domain" and ch.op is not Op.DELETE:
                booting[i] = (site, ch)
            else:
                results[i] = ChangeResult(ch, True)

        for batch in _batches(plan.changes):
            if cancel is not None and cancel.cancelled:
                results.update({j: ChangeResult(plan.changes[j], False, "cancelled")
                                for j in range(batch[0], total)})
                break
            if len(batch) == 1:
                one(batch[0])
            else:
                with ThreadPoolExecutor(max_workers=min(8, len(batch))) as pool:
                    list(pool.map(one, batch))
        if booting:
            report(total - len(booting), total, f"waiting for {len(booting)} guests to boot")
            results.update(self._boot_wait(plan.design_id, booting, report, total, cancel))
        return [results[i] for i in range(len(plan.changes)) if i in results]

    def _apply_one(self, design_id: str, site: Site, ch: PlannedChange) -> None:
        conn = self._open(site)
        if ch.kind == "leftover":
            site.shell.delete_leftovers(ch.data["links"], ch.data["spaces"], ch.data["bridges"])
            return
        if "libvirt" in ch.data:                      # a swept libvirt object
            self._undefine(conn, ch.data["libvirt"], ch.data["name"], design_id)
            return
        spec, mark = ch.data["spec"], Mark(design_id, ch.key, ch.data["mark"], "ready")
        if ch.kind == "domain":
            self._undefine(conn, "domain", spec["name"], design_id)
            if ch.op is Op.DELETE:
                return
            building = Mark(design_id, ch.key, ch.data["mark"], "building", ch.data.get("role", ""),
                            ch.data.get("host", ""))
            dom = conn.defineXML(domain_xml(spec, building, guestimage.SLOTS))
            dom.create()
            return
        if ch.kind in ("bridge", "ovs", "macvtap"):
            self._undefine(conn, "network", spec["network"], design_id)
            if not site.test_driver:
                {"bridge": site.shell.delete_bridge, "ovs": site.shell.delete_ovs,
                 "macvtap": lambda s: None}[ch.kind](spec)
            if ch.op is Op.DELETE:
                return
            if not site.test_driver:
                if ch.kind == "bridge":
                    site.shell.bridge(spec, mark.mark, ch.key)
                elif ch.kind == "ovs":
                    site.shell.ovs_bridge(spec, mark.mark, ch.key, design_id, self._datapath(site))
            net = conn.networkDefineXML(network_xml(ch.kind, spec, mark))
            net.create()
            return
        if site.test_driver:
            return                                     # no host side behind the test driver
        steps: dict[str, tuple[Callable[[dict[str, Any], str, str], None], Callable[[dict[str, Any]], None]]]
        steps = {"pswitch": (site.shell.pswitch, site.shell.delete_pswitch),
                 "pnic": (site.shell.pnic, site.shell.delete_pnic),
                 "patch": (site.shell.patch, site.shell.delete_patch),
                 "phost": (site.shell.phost, site.shell.delete_phost),
                 "bond": (site.shell.bond, site.shell.delete_bond),
                 "flows": (partial(pvlan_flows.install, site.shell), partial(pvlan_flows.remove, site.shell))}
        build, remove = steps[ch.kind]
        if ch.op is Op.DELETE:
            remove(spec)
        else:
            build(spec, mark.mark, ch.key)

    def _datapath(self, site: Site) -> str:
        if self.config.ovs_datapath != "auto":
            return self.config.ovs_datapath
        loaded = site.shell.run(["test", "-d", "/sys/module/openvswitch"], check=False).returncode == 0
        return "system" if loaded else "netdev"

    @staticmethod
    def _undefine(conn: Any, kind: str, name: str, design_id: str) -> None:
        """Remove the domain or network ``name`` when it carries the mark of ``design_id`` (of any design when
        that is empty: teardown of all); one that does not is ``Foreign`` and stays."""
        libvirt = _libvirt()
        lookup = conn.lookupByName if kind == "domain" else conn.networkLookupByName
        try:
            obj = lookup(name)
        except libvirt.libvirtError:
            return
        mark = read_mark(obj.XMLDesc(0))
        if mark is None or (design_id and mark.design != design_id):
            undefine = "virsh undefine" if kind == "domain" else "virsh net-undefine"
            raise Foreign(f"a libvirt {kind} {name}", f"{undefine} {name}")
        if obj.isActive():
            obj.destroy()
        obj.undefine()

    def _boot_wait(self, design_id: str, booting: dict[int, tuple[Site, PlannedChange]], report: Any,
                   total: int, cancel: CancelToken | None) -> dict[int, ChangeResult]:
        """Wait until every started guest answers on its channel, load its rules, mark it ready."""
        done = [total - len(booting)]

        def one(item: tuple[int, tuple[Site, PlannedChange]]) -> tuple[int, ChangeResult]:
            i, (site, ch) = item
            spec = ch.data["spec"]
            try:
                if not site.test_driver:
                    self._wait_ready(site, spec, cancel)
                    for key, what in (("nft", "nftables rules"), ("nat", "nftables SNAT/DNAT rules")):
                        if spec.get(key):
                            text = base64.b64encode(spec[key].encode()).decode()
                            code, _, err = channel.run(self.opener(site), spec["name"],
                                                       f"echo {text} | base64 -d | nft -f -", 120)
                            if code != 0:
                                raise BackendError(f"the guest refused its {what}: {err.strip()}", "")
                    for prefix, via, *dev in spec.get("routes", ()):   # a router guest's static routes
                        code, _, err = channel.run(self.opener(site), spec["name"], shlex.join(
                            ["ip", "route", "replace", prefix, "via", via, *(["dev", *dev] if dev else [])]), 60)
                        if code != 0:
                            raise BackendError(f"the guest refused its route to {prefix} via {via}: {err.strip()}",
                                               "check that the next hop lies in one of its vNICs' subnets")
                conn = self._open(site)
                dom = conn.lookupByName(spec["name"])
                mark = Mark(design_id, ch.key, ch.data["mark"], "ready", ch.data.get("role", ""),
                            ch.data.get("host", ""))
                libvirt = _libvirt()
                dom.setMetadata(libvirt.VIR_DOMAIN_METADATA_ELEMENT, mark_xml(mark), "vnb",
                                "https://vnetbench.io/xmlns/libvirt/1",
                                libvirt.VIR_DOMAIN_AFFECT_CONFIG | libvirt.VIR_DOMAIN_AFFECT_LIVE)
                result = ChangeResult(ch, True)
            except (BackendError, TimeoutError) as exc:
                result = ChangeResult(ch, False, getattr(exc, "message", str(exc)))
            except Exception as exc:  # noqa: BLE001 - libvirt errors: reported per change
                result = ChangeResult(ch, False, _message(exc))
            done[0] += 1
            report(done[0], total, f"guest {spec['name']} {'ready' if result.ok else 'failed'}")
            return i, result

        with ThreadPoolExecutor(max_workers=min(16, len(booting))) as pool:
            return dict(pool.map(one, booting.items()))

    def _wait_ready(self, site: Site, spec: dict[str, Any], cancel: CancelToken | None) -> None:
        deadline = time.monotonic() + BOOT_TIMEOUT
        cmd = channel.GuestCommand(self.opener(site), spec["name"], ["true"], "true")
        try:
            while True:
                try:
                    code = cmd.wait(0.5)
                    break
                except TimeoutError:
                    if cancel is not None and cancel.cancelled:
                        raise BackendError("cancelled while the guest booted", "") from None
                    if time.monotonic() > deadline:
                        raise BackendError(f"guest {spec['name']} did not answer within {BOOT_TIMEOUT:.0f} s",
                                           "look at its serial console (virsh console)") from None
        finally:
            cmd.terminate()
        if code != 0:
            raise BackendError(f"guest {spec['name']}: its command channel answered {code}", "")

    # --- teardown, status, deployments ---------------------------------------------------------------

    def teardown(self, design_id: str | None = None, progress: ProgressFn | None = None,
                 cancel: CancelToken | None = None) -> list[ChangeResult]:
        with self._locked(design_id or ""):
            changes: list[PlannedChange] = []
            for host in self._setting_hosts():
                site = self.site(host)
                changes += [c for c in self._sweep(design_id or "", None, site, self.held(site, False), "teardown")
                            if c not in changes]
            changes.sort(key=lambda c: -PHASE.get(c.kind, 9))
            plan = Plan(self.name, design_id or "", tuple(changes))
            return self._apply(plan, progress, cancel) if changes else []

    def status(self, design: Topology) -> dict[str, ObjectState]:
        want = self.desired(design, self.boot(design))
        helds: dict[int, Held] = {}
        out: dict[str, list[tuple[DeployState, str]]] = {}
        for w in want.wants.values():
            site = self._host_site(design, w.host)
            if site.test_driver and w.kind in HOST_KINDS:
                continue
            held = helds.setdefault(id(site), self.held(site, False))
            now = self.current_mark(w, held)
            if now == w.mark:
                item = (DeployState.DEPLOYED, "")
            elif self._exists(w, held):
                item = (DeployState.PENDING, f"{w.description} differs from the design")
            else:
                item = (DeployState.ABSENT, f"{w.description} is not built")
            if w.object_id:
                out.setdefault(w.object_id, []).append(item)
        result = {}
        for oid, items in out.items():
            states = {s for s, _ in items}
            if states == {DeployState.DEPLOYED}:
                result[oid] = ObjectState(DeployState.DEPLOYED)
            elif states == {DeployState.ABSENT}:
                result[oid] = ObjectState(DeployState.ABSENT, items[0][1])
            else:
                result[oid] = ObjectState(DeployState.PENDING, next(r for s, r in items if r))
        return result

    def deployments(self) -> list[Deployment]:
        counts: dict[str, int] = {}
        for host in self._setting_hosts():
            held = self.held(self.site(host), False)
            for mark, _ in [*held.domains.values(), *held.networks.values()]:
                if mark is not None:
                    counts[mark.design] = counts.get(mark.design, 0) + 1
        return [Deployment(did, did, n, "libvirt domains and networks") for did, n in sorted(counts.items())]

    # --- import and endpoints -------------------------------------------------------------------------

    def import_design(self, progress: ProgressFn | None = None) -> Topology:
        sites = [(h, self.site(h)) for h in self._setting_hosts()]
        return import_hosts([(name if name != "*" else "", self._open(site), site.uri) for name, site in sites],
                            progress)

    def endpoint(self, design: Topology, vm_id: str) -> Endpoint:
        try:
            obj = Index(design).endpoint(vm_id)
        except LookupError as exc:
            raise BackendError(str(exc), "name a VM of the design") from None
        want = self.desired(design)
        if obj.id in want.bystanders:
            info = want.bystanders[obj.id]
            site = self._host_site(design, info.host)
            if site.test_driver or info.ns not in site.shell.run(["ip", "netns", "list"]).stdout.split():
                raise BackendError(f"{obj.name} is not deployed", "run `vnetbench deploy FILE --backend kvm` first")
            return NamespaceEndpoint(site.shell.prefix, obj.name, info.ns, info.addresses, info.addresses6)
        guest = want.guests.get(obj.id)
        if guest is None:
            raise BackendError(f"{obj.name} is not a guest the KVM backend deploys", "pick a VM on a KVM host")
        site = self._host_site(design, guest.host)
        libvirt = _libvirt()
        try:
            running = self._open(site).lookupByName(guest.domain).isActive()
        except libvirt.libvirtError:
            running = False
        if not running:
            raise BackendError(f"{obj.name} is not running on {site.uri}",
                               "run `vnetbench deploy FILE --backend kvm` first")
        return channel.GuestEndpoint(self.opener(site), obj.name, guest.domain, guest.addresses, guest.cpus,
                                     guest.addresses6)

    def pnic_counters(self, design: Topology) -> dict[str, int]:
        """Bytes each design pNIC carried, both ways: the host-side ends of its wires (an emulated pNIC's veths,
        or the real device and its VLAN devices), read from the KVM host's ``/proc/net/dev`` in one command
        per host. Whatever Linux bridge or Open vSwitch port a wire is attached to, the kernel
        counts every frame that crosses it there."""
        sites: dict[int, tuple[Site, list[tuple[str, list[str]]]]] = {}
        for w in self.desired(design).wants.values():
            if w.kind == "pnic" and w.object_id:
                site = self._host_site(design, w.host)
                sites.setdefault(id(site), (site, []))[1].append((w.object_id, [x["host_if"] for x in w.spec["wires"]]))
        out: dict[str, int] = {}
        for site, pnics in sites.values():
            if site.test_driver:
                raise BackendError(f"{site.uri} is libvirt's test driver: it has no host whose counters could be read",
                                   "verify checks reachability and MTU only there")
            counted = _read_counters(site.shell, sorted({dev for _, devs in pnics for dev in devs}))
            for pnic_id, devs in pnics:
                out[pnic_id] = sum(counted.get(dev, 0) for dev in devs)
        return out


def _read_counters(shell: Any, devs: list[str]) -> dict[str, int]:
    """rx + tx bytes of each of ``devs`` on the host behind ``shell`` (a device that is gone counts 0), from
    ``/proc/net/dev``: it follows the network namespace of whoever reads it, where ``/sys/class/net`` shows the
    namespace its sysfs was mounted in (a ``host_exec`` of ``nsenter -n`` keeps the outer one's)."""
    if not devs:
        return {}
    wanted, out = set(devs), {}
    for line in shell.run(["cat", "/proc/net/dev"]).stdout.splitlines():
        name, colon, numbers = line.partition(":")
        fields = numbers.split()
        if colon and name.strip() in wanted and len(fields) >= 9:
            out[name.strip()] = int(fields[0]) + int(fields[8])     # receive bytes, transmit bytes
    return out


def _batches(changes: tuple[PlannedChange, ...]) -> list[list[int]]:
    """Indexes of the changes in the order they run; guests (independent of each other) run side by side."""
    out: list[list[int]] = []
    for i, ch in enumerate(changes):
        prev = changes[out[-1][0]] if out else None
        if prev is not None and ch.kind == prev.kind == "domain" and (ch.op is Op.DELETE) == (prev.op is Op.DELETE):
            out[-1].append(i)
        else:
            out.append([i])
    return out


def foreign(design_id: str, w: Want, held: Held) -> str | None:
    """Why an object ``w`` creates is in the way: it exists but carries no mark of this design (None: free)."""
    if w.kind == "domain":
        name, table, what, cmd = w.spec["name"], held.domains, "domain", "virsh undefine"
    elif w.kind in LIBVIRT_KINDS:
        name, table, what, cmd = w.spec["network"], held.networks, "network", "virsh net-undefine"
    else:
        name = ""
    if name in (table if name else {}):
        mark = table[name][0]
        if mark is None or mark.design != design_id:
            return str(Foreign(f"a libvirt {what} {name}", f"{cmd} {name}"))
    for kind, host_name in _host_names(w):
        why = held.host.foreign(kind, host_name, design_id)
        if why:
            return why
    return None


def _attached(w: Want, host: Listing) -> bool:
    """Whether a real pNIC is wired as ``w`` says. The host's own device carries no mark of ours (it is not
    vnetbench's to label): its bridge membership is read instead; a VLAN sub-interface and an OVS port
    vnetbench added carry the want's mark."""
    for wire in w.spec["wires"]:
        dev, attach = wire["host_if"], wire["attach"]
        link = host.links.get(dev)
        if link is None:
            return False
        if dev != wire["dev"] and (link.get("ifalias") or "").split()[1:] != [w.mark, w.key]:
            return False
        if attach["kind"] == "bridge" and link.get("master") != attach["bridge"]:
            return False
        if attach["kind"] == "ovs" and host.ports.get(dev, {}).get("vnetbench-mark") != w.mark:
            return False
    return True


def _host_names(w: Want) -> list[tuple[str, str]]:
    """(kind, name) of the host objects a want creates under names vnetbench gives: ``link``, ``ovs``, ``ns``."""
    spec = w.spec
    if w.kind == "bridge":
        return [("link", spec["bridge"])]
    if w.kind == "ovs":
        return [("ovs", spec["bridge"])]
    if w.kind in ("pswitch", "phost"):
        return [("ns", spec["ns"])]
    if w.kind == "pnic":
        wires = [("link", x["host_if"]) for x in spec["wires"] if not spec["real"] or x["host_if"] != x["dev"]]
        return wires + ([] if spec["real"] else [("link", spec["ifb_host"])])
    if w.kind == "patch" and not spec["ovs_patch"]:
        return [("link", spec["a"]["if"]), ("link", spec["b"]["if"])]
    return []


def _names(w: Want) -> set[str]:
    """Host-side names a want creates (so the sweep keeps them)."""
    spec = w.spec
    if w.kind in ("bridge", "ovs"):
        return {spec["bridge"]}
    if w.kind in ("pswitch", "phost"):
        return {spec["ns"]}
    if w.kind == "pnic":
        return {spec["ifb_host"], *(x["host_if"] for x in spec["wires"])}
    if w.kind == "patch":
        return {spec["a"]["if"], spec["b"]["if"]}
    return set()


def _message(exc: Exception) -> str:
    get = getattr(exc, "get_error_message", None)
    return str(get() if get else exc)
