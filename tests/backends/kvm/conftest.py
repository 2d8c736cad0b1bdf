"""Fixtures for the KVM end-to-end tests: one private KVM host (``kvmhost``) per module, with a domain, a
network, a Linux bridge and an OVS bridge that vnetbench did not make, and a listing of the host taken
before anything was deployed (teardown must restore it exactly)."""

from __future__ import annotations

import json
import os

import pytest

from kvmhost import KvmHost, missing_tools

FOREIGN_DOMAIN = ("<domain type='qemu'><name>admins-vm</name><memory unit='MiB'>64</memory>"
                  "<os><type arch='x86_64' machine='pc'>hvm</type></os></domain>")
FOREIGN_NETWORK = "<network><name>admins-lan</name><forward mode='bridge'/><bridge name='br-admin'/></network>"


def listing(host: KvmHost) -> dict[str, object]:
    """What libvirt, Open vSwitch and the kernel hold, by name (and state), for before/after comparisons."""
    import libvirt

    conn = libvirt.open(host.uri)
    try:
        domains = sorted((d.name(), d.isActive()) for d in conn.listAllDomains())
        networks = sorted((n.name(), n.isActive()) for n in conn.listAllNetworks())
    finally:
        conn.close()
    links = sorted(link["ifname"] for link in json.loads(host.run(["ip", "-j", "link", "show"]).stdout))
    bridges = host.run(["ovs-vsctl", "list-br"]).stdout.split()
    ports = {br: host.run(["ovs-vsctl", "list-ports", br]).stdout.split() for br in bridges}
    return {"domains": domains, "networks": networks, "links": links, "netns": host.run(["ip", "netns"]).stdout,
            "ovs": ports, "qdiscs": host.run(["tc", "qdisc", "show"]).stdout}


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
