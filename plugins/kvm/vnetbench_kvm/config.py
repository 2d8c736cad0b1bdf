"""The KVM backend's settings and the names it gives what it creates.

Settings (all text, so the GUI's connect dialog and ``--set KEY=VALUE`` carry them):

- ``uri``: the libvirt URI. One for every design host (``qemu:///system``), or one per host, by the design
  host's name: ``kvm01=qemu:///system; kvm02=qemu+ssh://root@kvm02/system`` (``*=`` sets the default).
  ``test:///default`` is libvirt's in-memory test driver.
- ``host_exec``: how host-side commands (``ip``, ``ovs-vsctl``, ``tc``) reach a host: empty to run them here,
  or a prefix such as ``ssh root@kvm02`` or ``nsenter -t PID -n -m``; per host like ``uri``.
- ``image``: ``auto`` (the probe guest, built and cached on first use) or ``KERNEL,INITRD`` paths on the host.
- ``machine`` (``pc``), ``accel`` (``auto``: ``kvm`` where the host offers it, else ``qemu``, i.e. TCG),
  ``memory_mb`` (per guest).
- ``pnics``: ``emulate`` (a one-machine lab: physical switches become namespaces, pNICs veths shaped to their
  speed) or ``real`` (the pNICs exist on the host under their design names and are only referenced).
- ``ovs_datapath``: ``auto`` (the kernel datapath where the openvswitch module is loaded, else userspace
  ``netdev``), ``system`` or ``netdev``.

Every name carries the design's tag (six hex digits of its id's hash): libvirt objects are ``vnb-<tag>-<name>``,
host interfaces ``v<role><tag><hash>`` (15 characters at most), namespaces of physical switches and hosts
``vnk<tag>-s-<id>`` / ``vnk<tag>-p-<id>``.
The tag finds a design's objects even when its file is gone; the marks (``marking``) prove they are ours.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from vnetbench.backends import BadSetting
from vnetbench.backends.planning import digest

DEFAULT_URI = "qemu:///system"
DEFAULT_MEMORY_MB = 192
NS_PREFIX = "vnk"
_SAFE = re.compile(r"[^A-Za-z0-9_.+-]+")
_NS_SAFE = re.compile(r"[^A-Za-z0-9_.]")
IFACE = re.compile(r"^v[bwpicx]([0-9a-f]{6})[0-9a-f]{5,6}$")


def libvirt_name(tag: str, name: str) -> str:
    """A domain or network name: ``vnb-<tag>-<design name>``."""
    return f"vnb-{tag}-{_SAFE.sub('_', name)}"


def split_libvirt_name(name: str) -> tuple[str, str] | None:
    match = re.match(r"^vnb-([0-9a-f]{6})-(.+)$", name)
    return (match.group(1), match.group(2)) if match else None


def ifname(role: str, tag: str, *parts: object) -> str:
    """A host interface: ``v`` + role letter + tag + 5 hex digits of what it stands for (13 characters)."""
    return f"v{role}{tag}{digest(*parts)[:5]}"


def ns_name(tag: str, obj_id: str, role: str = "s") -> str:
    """A namespace of the emulated physical network: ``s`` a physical switch, ``p`` a physical host."""
    safe = _NS_SAFE.sub("_", obj_id)[:24]
    return f"{NS_PREFIX}{tag}-{role}-{safe}"


def _is_table(text: str) -> bool:
    """``h1=v1; h2=v2`` rather than one value for all (a URI's query may hold "=", a host name cannot ":/ ")."""
    first = text.split(";")[0]
    return "=" in first and not any(c in first.partition("=")[0].strip() for c in ":/ ")


def per_host(value: str, host: str, default: str) -> str:
    """``value`` for design host ``host``: a plain value is everyone's; ``h1=v1; *=v2`` picks by name."""
    text = value.strip()
    if not text:
        return default
    if not _is_table(text):
        return text
    table: dict[str, str] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        key, sep, val = part.partition("=")
        if not sep:
            raise BadSetting(f"the setting {part.strip()!r} is not HOST=VALUE",
                               "write one value, or kvm01=qemu:///system; kvm02=qemu+ssh://root@kvm02/system")
        table[key.strip()] = val.strip()
    return table.get(host, table.get("*", default))


#: Every setting the KVM backend reads (``url`` is what ``--url`` gives: the same as ``uri``).
KNOWN = ("uri", "url", "host_exec", "image", "machine", "accel", "memory_mb", "pnics", "ovs_datapath")


@dataclass(frozen=True)
class Settings:
    raw: Mapping[str, Any]

    def check(self) -> None:
        """Every setting read once, before anything is touched: ``BadSetting`` (exit 2) for an unknown key
        (a typo would otherwise fall back to a default silently) or a bad value."""
        unknown = sorted(k for k in self.raw if k not in KNOWN)
        if unknown:
            close = [m for k in unknown for m in difflib.get_close_matches(k, KNOWN, 1)]
            guess = f" (did you mean {', '.join(close)}?)" if close else ""
            raise BadSetting(f"unknown KVM setting{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}{guess}",
                             f"the KVM backend knows {', '.join(k for k in KNOWN if k != 'url')}")
        for host in self.hosts():
            self.uri(host)
            self.host_exec(host)
        self.accel, self.memory_mb, self.emulate, self.ovs_datapath, self.image_paths   # noqa: B018 - checks

    def text(self, key: str, default: str = "") -> str:
        value = self.raw.get(key)
        return default if value is None or value == "" else str(value)

    def hosts(self) -> list[str]:
        """The host names the ``uri`` setting names (``*`` when it is one URI for all)."""
        text = self.text("uri", self.text("url")).strip()
        if not _is_table(text):
            return ["*"]
        return [p.partition("=")[0].strip() for p in text.split(";") if p.strip()]

    def uri(self, host: str) -> str:
        return per_host(self.text("uri", self.text("url")), host, DEFAULT_URI)

    def host_exec(self, host: str) -> list[str]:
        text = per_host(self.text("host_exec"), host, "")
        try:
            return shlex.split(text)
        except ValueError as exc:
            raise BadSetting(f"host_exec {text!r} is not a command line ({exc})",
                             "quote it as a shell would, like host_exec=ssh root@kvm02") from None

    @property
    def machine(self) -> str:
        return self.text("machine", "pc")

    @property
    def accel(self) -> str:
        accel = self.text("accel", "auto")
        if accel not in ("auto", "kvm", "qemu"):
            raise BadSetting(f"accel {accel!r} is not auto, kvm or qemu", "use accel=qemu for TCG")
        return accel

    @property
    def memory_mb(self) -> int:
        text = self.text("memory_mb", str(DEFAULT_MEMORY_MB))
        if not text.isdigit() or int(text) < 64:
            raise BadSetting(f"memory_mb {text!r} is not a number of MiB (64 or more)", "use memory_mb=192")
        return int(text)

    @property
    def emulate(self) -> bool:
        mode = self.text("pnics", "emulate")
        if mode not in ("emulate", "real"):
            raise BadSetting(f"pnics {mode!r} is not emulate or real", "use pnics=emulate for a one-machine lab")
        return mode == "emulate"

    @property
    def ovs_datapath(self) -> str:
        value = self.text("ovs_datapath", "auto")
        if value not in ("auto", "system", "netdev"):
            raise BadSetting(f"ovs_datapath {value!r} is not auto, system or netdev", "use ovs_datapath=netdev")
        return value

    @property
    def image(self) -> str:
        return self.text("image", "auto")

    @property
    def image_paths(self) -> tuple[str, str] | None:
        """(kernel, initrd) the ``image`` setting names, None for ``auto``."""
        if self.image == "auto":
            return None
        kernel, _, initrd = (p.strip() for p in self.image.partition(","))
        if not kernel.startswith("/") or not initrd.startswith("/"):
            raise BadSetting(f"image {self.image!r} is not KERNEL,INITRD (two absolute paths on the KVM host)",
                             "write image=/path/vmlinuz,/path/initrd.img, or image=auto for the probe guest")
        return kernel, initrd
