"""The probe guest image's recipe carries vnetbench's IPv6 shim for sockperf 3.7 (``vnetbench_kvm.guestimage``):
the shim lands at the guest's fixed path with every library it loads, and the recipe digest, which keys the cached
images, follows the shim's source, so an image built before a change to it is not reused."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from vnetbench.backends import sockperf_inet6


def test_the_recipe_digest_follows_the_shims_source(tmp_path, monkeypatch):
    from vnetbench_kvm import guestimage

    source = tmp_path / sockperf_inet6.SOURCE.name
    shutil.copy(sockperf_inet6.SOURCE, source)
    before = guestimage.recipe_digest()
    monkeypatch.setattr(sockperf_inet6, "SOURCE", source)
    assert guestimage.recipe_digest() == before
    source.write_text(source.read_text() + "/* changed */\n")
    assert guestimage.recipe_digest() != before


def test_the_image_root_holds_the_shim_at_the_guests_path_with_what_it_loads(tmp_path, monkeypatch):
    """Assembled from this machine's files as the stage (sockperf and libc are where the unpacked packages put
    them); the file list is what the initramfs holds."""
    from vnetbench_kvm import guestimage
    from vnetbench_kvm.channel import GuestEndpoint

    monkeypatch.setattr(guestimage, "PROGRAMS", ("usr/bin/sockperf",))
    shim = guestimage.build_shim()
    root = tmp_path / "root"
    guestimage._copy_programs(Path("/"), root, shim)
    files = {str(p.relative_to(root)) for p in root.rglob("*")}
    assert guestimage.SHIM in files and "usr/bin/sockperf" in files
    copied = root / guestimage.SHIM
    assert copied.read_bytes() == shim.read_bytes() and os.access(copied, os.X_OK)
    needed = guestimage.elf_needed(copied)
    assert "libc.so.6" in needed
    assert {f"lib/x86_64-linux-gnu/{soname}" for soname in needed} <= files
    endpoint = GuestEndpoint(lambda: None, "g", "vnb-g", {}, 1)
    assert endpoint.sockperf_inet6() == "/" + guestimage.SHIM


def test_without_gcc_the_image_build_stops_before_downloading_with_the_fix(tmp_path, monkeypatch):
    from vnetbench.backends import BackendError
    from vnetbench_kvm import guestimage

    monkeypatch.setattr(sockperf_inet6, "library_path", lambda: tmp_path / "not-built.so")
    monkeypatch.setenv("PATH", str(tmp_path))            # no gcc, and no apt-get either
    img = guestimage.image(tmp_path / "guest")
    img.kernel.parent.mkdir(parents=True)
    with pytest.raises(BackendError) as caught:
        guestimage.build(img, lambda msg: None)
    assert caught.value.message.startswith("building the probe guest: round trips over IPv6 need gcc")
    assert "apt-get install gcc libc6-dev" in caught.value.message and "\n" not in str(caught.value)
    assert not img.initrd.exists()
