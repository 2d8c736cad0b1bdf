"""The probe guest: a Debian kernel and a small initramfs (busybox, iperf3, sockperf, nftables, ethtool, and
vnetbench's IPv6 shim for sockperf 3.7).

Built offline from Debian packages (``apt-get download`` + ``dpkg-deb -x``; nothing is installed on the
machine) and booted by direct kernel boot with a serial console, so there is no installer, no disk image and
no DHCP. The shim is compiled by the builder round trips over IPv6 use on this machine
(``vnetbench.backends.sockperf_inet6``, gcc), against this machine's glibc: the guest's libc6 comes from the
same Debian release. The result lives in the user cache folder under the digest of its recipe (this file, the
scripts in ``guest/`` and the shim's source): changing the recipe builds a new image, an unchanged one is reused.

    python -m vnetbench_kvm.guestimage        # build (or find) the image and print its paths
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from vnetbench import dirs
from vnetbench.backends import BackendError, sockperf_inet6

GUEST_DIR = Path(__file__).with_name("guest")
KERNEL_PACKAGE = "linux-image-amd64"
PACKAGES = ("busybox-static", "iperf3", "libiperf0", "sockperf", "nftables", "ethtool", "libc6", "libgcc-s1",
            "libstdc++6", "libssl3", "libsctp1", "libnftables1", "libnftnl11", "libmnl0", "libjansson4",
            "libxtables12", "libgmp10", "libedit2", "libbsd0", "libmd0", "libtinfo6")
PROGRAMS = ("usr/bin/iperf3", "usr/bin/sockperf", "usr/sbin/nft", "sbin/ethtool")
#: Drivers for every NIC model QEMU emulates (pcnet, e1000, e1000e, vmxnet3, virtio, rtl8139), the
#: virtio-serial command channel, guest VLAN tagging, bridging (bridged firewalls), nftables, its NAT and its
#: reject of both families (``inet``: TCP reset, ICMP or ICMPv6 unreachable). IPv6 itself is built into
#: Debian's kernel (``modules.builtin``).
MODULES = ("crc32c_generic", "virtio_pci", "virtio_net", "virtio_console", "pcnet32", "e1000", "e1000e", "vmxnet3", "8139cp",
           "8139too", "8021q", "bridge", "nf_tables", "nft_ct", "nf_conntrack", "nft_meta_bridge",
           "nf_conntrack_bridge", "nf_nat", "nft_nat", "nft_chain_nat", "nft_reject_inet")
#: Command slots: virtio-serial ports vnetbench.0 .. vnetbench.N-1, each served by one agent.
SLOTS = 8
LIB_DIRS = ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu", "lib64")
#: Where the guest keeps vnetbench's IPv6 shim for sockperf 3.7 (``GuestEndpoint.sockperf_inet6``).
SHIM = "usr/lib/vnetbench/sockperf_inet6.so"


@dataclass(frozen=True)
class GuestImage:
    kernel: Path
    initrd: Path
    digest: str


def recipe_digest() -> str:
    h = hashlib.sha256(Path(__file__).read_bytes())
    for script in [*sorted(GUEST_DIR.iterdir()), sockperf_inet6.SOURCE]:
        h.update(script.name.encode() + b"\0" + script.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    return dirs.cache_dir() / "guest"


def image(root: Path | None = None) -> GuestImage:
    """Where the image of the current recipe is (or will be) kept."""
    digest = recipe_digest()
    folder = (root or cache_root()) / digest
    return GuestImage(folder / "vmlinuz", folder / "initrd.img", digest)


def ensure_image(root: Path | None = None, log=None) -> GuestImage:
    """The image of the current recipe, built first when the cache lacks it (one builder at a time)."""
    img = image(root)
    if img.kernel.exists() and img.initrd.exists():
        return img
    img.kernel.parent.mkdir(parents=True, exist_ok=True)
    with open(img.kernel.parent.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (img.kernel.exists() and img.initrd.exists()):
            build(img, log or (lambda msg: None))
    return img


def _run(argv: list[str], cwd: Path | None = None) -> str:
    try:
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BackendError(f"building the probe guest: {argv[0]} failed: {exc}",
                           "install apt, dpkg, kmod and cpio (Debian)") from None
    if proc.returncode != 0:
        raise BackendError(f"building the probe guest: {' '.join(argv[:3])} failed: "
                           f"{proc.stderr.strip().splitlines()[-1:] or proc.returncode}",
                           "run apt-get update once, and check that Debian's package mirror is reachable")
    return proc.stdout


def kernel_package() -> str:
    """The versioned kernel package Debian's ``linux-image-amd64`` points at now."""
    out = _run(["apt-cache", "depends", KERNEL_PACKAGE])
    for line in out.splitlines():
        name = line.strip().removeprefix("Depends:").strip()
        if line.strip().startswith("Depends:") and name.startswith("linux-image-"):
            return name
    raise BackendError(f"building the probe guest: {KERNEL_PACKAGE} names no kernel", "run apt-get update once")


def elf_needed(path: Path) -> list[str]:
    """The DT_NEEDED sonames of a 64-bit little-endian ELF file (what the dynamic loader will look for)."""
    data = path.read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for _name, kind, _flags, _addr, offset, size, link, *_ in sections:
        if kind != 6:                                   # SHT_DYNAMIC
            continue
        strtab = sections[link][4]
        for i in range(0, size, 16):
            tag, value = struct.unpack_from("<qQ", data, offset + i)
            if tag == 1:                                # DT_NEEDED
                end = data.index(b"\0", strtab + value)
                out.append(data[strtab + value:end].decode())
    return out


def _find_lib(stage: Path, soname: str) -> Path | None:
    for d in LIB_DIRS:
        candidate = stage / d / soname
        if candidate.exists():
            return candidate
    return None


def build_shim() -> Path:
    """The IPv6 shim for sockperf 3.7, built on this machine (before anything is downloaded)."""
    try:
        return sockperf_inet6.build()
    except sockperf_inet6.ShimUnavailable as exc:
        raise BackendError(f"building the probe guest: {exc}", "the probe guest carries vnetbench's IPv6 shim for "
                                                               "sockperf, so building it needs gcc") from None


def _copy_programs(stage: Path, root: Path, shim: Path) -> None:
    """The programs, the shim at ``SHIM``, and every library they load, taken from the unpacked packages."""
    libdir = root / "lib/x86_64-linux-gnu"
    libdir.mkdir(parents=True)
    (root / "lib64").mkdir()
    todo = [stage / p for p in PROGRAMS]
    for program in todo[:]:
        dest = root / program.relative_to(stage)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(program.resolve(), dest)
    (root / SHIM).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(shim, root / SHIM)
    todo.append(root / SHIM)
    seen: set[str] = set()
    while todo:
        for soname in elf_needed(todo.pop().resolve()):
            if soname in seen:
                continue
            seen.add(soname)
            lib = _find_lib(stage, soname)
            if lib is None:
                raise BackendError(f"building the probe guest: no package of the recipe holds {soname}",
                                   "add its Debian package to PACKAGES in vnetbench_kvm/guestimage.py")
            shutil.copy(lib.resolve(), libdir / soname)
            todo.append(lib)
    loader = _find_lib(stage, "ld-linux-x86-64.so.2")
    assert loader is not None
    shutil.copy(loader.resolve(), root / "lib64/ld-linux-x86-64.so.2")


def _copy_modules(stage: Path, root: Path) -> None:
    """The wanted modules and everything they depend on (by the kernel's own modules.dep)."""
    (version,) = [p.name for p in (stage / "lib/modules").iterdir()]
    _run(["depmod", "-b", str(stage), version])
    base = stage / "lib/modules" / version
    deps: dict[str, list[str]] = {}
    for line in (base / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[Path(path).name.removesuffix(".ko")] = [path, *rest.split()]
    picked: set[str] = set()
    for name in MODULES:
        entry = deps.get(name) or deps.get(name.replace("_", "-"))
        if entry:
            picked.update(entry)
    for rel in picked:
        dest = root / "lib/modules" / version / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(base / rel, dest)
    for meta in ("modules.order", "modules.builtin", "modules.builtin.modinfo"):
        if (base / meta).exists():
            shutil.copy(base / meta, root / "lib/modules" / version / meta)
    _run(["depmod", "-b", str(root), version])


def _write_root(stage: Path, root: Path, shim: Path) -> None:
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "etc/vnb", "proc", "sys", "dev", "tmp", "run", "root"):
        (root / d).mkdir(parents=True, exist_ok=True)
    shutil.copy(stage / "bin/busybox", root / "bin/busybox")
    _copy_programs(stage, root, shim)
    _copy_modules(stage, root)
    shutil.copy(GUEST_DIR / "init", root / "init")
    for script in ("rc", "agent"):
        shutil.copy(GUEST_DIR / script, root / "etc/vnb" / script)
    (root / "etc/vnb/modules").write_text("".join(f"{m}\n" for m in MODULES))
    inittab = ["::sysinit:/etc/vnb/rc", *(f"::respawn:/etc/vnb/agent {n}" for n in range(SLOTS)),
               "::ctrlaltdel:/bin/poweroff -f"]
    (root / "etc/inittab").write_text("\n".join(inittab) + "\n")
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (root / "etc/group").write_text("root:x:0:\n")
    for path in (root / "init", root / "etc/vnb/rc", root / "etc/vnb/agent"):
        path.chmod(0o755)


def build(img: GuestImage, log) -> None:
    with tempfile.TemporaryDirectory(prefix="vnetbench-guest-") as tmp:
        work = Path(tmp)
        debs, stage, root = work / "debs", work / "stage", work / "root"
        debs.mkdir()
        shim = build_shim()
        kernel = kernel_package()
        log(f"downloading {kernel} and {len(PACKAGES)} Debian packages")
        _run(["apt-get", "download", "-q", kernel, *PACKAGES], cwd=debs)
        log("unpacking")
        for deb in sorted(debs.glob("*.deb")):
            _run(["dpkg-deb", "-x", str(deb), str(stage)])
        (vmlinuz,) = (stage / "boot").glob("vmlinuz-*")
        log("assembling the initramfs")
        _write_root(stage, root, shim)
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
        cpio = subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"], cwd=root,
                              input=("\n".join(files) + "\n").encode(), capture_output=True)
        if cpio.returncode != 0:
            raise BackendError(f"building the probe guest: cpio failed: {cpio.stderr.decode().strip()}",
                               "install cpio")
        tmp_initrd = img.initrd.with_suffix(".part")
        tmp_initrd.write_bytes(cpio.stdout)
        shutil.copy(vmlinuz, img.kernel.with_suffix(".part"))
        img.kernel.with_suffix(".part").replace(img.kernel)
        tmp_initrd.replace(img.initrd)
        log(f"probe guest image ready: {img.initrd} ({len(cpio.stdout) // 1024} KiB)")


def main() -> int:
    try:
        img = ensure_image(log=lambda msg: print(msg, file=sys.stderr))
    except BackendError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"kernel {img.kernel}\ninitrd {img.initrd}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
