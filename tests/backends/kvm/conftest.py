"""Fixtures for the KVM end-to-end tests: one private KVM host (``kvmhost``) per module, with a domain, a
network, a Linux bridge and an OVS bridge that vnetbench did not make, and a listing of the host taken
before anything was deployed (teardown must restore it exactly)."""

from __future__ import annotations

import os

import pytest

from kvmhost import KvmHost, listing, missing_tools

FOREIGN_DOMAIN = ("<domain type='qemu'><name>admins-vm</name><memory unit='MiB'>64</memory>"
                  "<os><type arch='x86_64' machine='pc'>hvm</type></os></domain>")
FOREIGN_NETWORK = "<network><name>admins-lan</name><forward mode='bridge'/><bridge name='br-admin'/></network>"


@pytest.fixture(scope="module")
def kvm_host(tmp_path_factory):
    missing = missing_tools()
    reason = (f"missing {', '.join(missing)} (scripts/setup.sh test installs them)" if missing else
              "needs root (network and mount namespaces for libvirtd)" if os.geteuid() != 0 else "")
    if reason:
        if os.environ.get("CI"):       # CI installs libvirt, QEMU and OVS: a missing one there is a failure
            pytest.fail(reason)
        pytest.skip(reason)
    import libvirt

    host = KvmHost(tmp_path_factory.mktemp("kvmhost"))
    host.start()
    try:
        host.run(["ip", "link", "add", "br-admin", "type", "bridge"])
        host.run(["ovs-vsctl", "--timeout=30", "add-br", "ovs-admin", "--", "set", "bridge", "ovs-admin",
                  "datapath_type=netdev"])
        conn = libvirt.open(host.uri)
        conn.networkDefineXML(FOREIGN_NETWORK).create()
        conn.defineXML(FOREIGN_DOMAIN)
        conn.close()
        host.before = listing(host)
        yield host
    finally:
        host.stop()
