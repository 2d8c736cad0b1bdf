"""Import reads every guest address VMware Tools report, both families, with its prefix length
(``guest.net[].ipConfig``): the vNIC's ``ip`` takes the first (IPv4 before IPv6), ``addresses`` the rest, IPv6 in
RFC 5952 short form, IPv6 link-local addresses left out (every IPv6 interface has one; they only name next hops).

vcsim's own knob (``ip0=``) sets one address without a prefix; a VM's ``ipConfig`` is written into a saved
inventory (``govc object.save``) and loaded with ``vcsim -load``, which serves it as vCenter does."""

from __future__ import annotations

import re

import pytest
from pyVmomi import vim
from vnetbench.model.validate import validate
from vnetbench_vsphere import inventory

from vcsim_tools import make_backend

pytestmark = pytest.mark.slow

LINK_LOCAL = "fe80::250:56ff:fe00:1"


def _ip_config(*pairs: tuple[str, int]) -> str:
    return "<ipConfig>" + "".join(f"<ipAddress><ipAddress>{a}</ipAddress><prefixLength>{p}</prefixLength>"
                                  "<state>preferred</state></ipAddress>" for a, p in pairs) + "</ipConfig>"


def _saved_vm(saved, name: str):
    return next(p for p in saved.glob("*-VirtualMachine-vm-*.xml") if f"<name>{name}</name>" in p.read_text())


def test_dual_stack_guest_addresses_import_from_vcsim(vcsim, memory_keyring, tmp_path):
    saved = tmp_path / "saved"
    vcsim.govc("object.save", "-d", str(saved))
    record = _saved_vm(saved, "DC0_H0_VM0")
    listed = ["10.30.0.11", "2001:DB8:30:0:0:0:0:11", LINK_LOCAL, "2001:db8:31::5"]   # the last one: no ipConfig
    net = ("".join(f"<ipAddress>{a}</ipAddress>" for a in listed)
           + "<connected>true</connected><deviceConfigId>4000</deviceConfigId>"
           + _ip_config(("2001:DB8:30:0:0:0:0:11", 64), ("10.30.0.11", 24), (LINK_LOCAL, 64)))
    text, count = re.subn(r"<connected>true</connected>\s*<deviceConfigId>4000</deviceConfigId>", net,
                          record.read_text(), count=1)
    assert count == 1
    record.write_text(text)
    vcsim.kill()
    vcsim.args = ["-load", str(saved)]
    vcsim.start()
    backend = make_backend(vcsim, memory_keyring, tmp_path)
    try:
        topo = backend.import_design()
    finally:
        backend.close()
    nic = next(vm for vm in topo.vms if vm.name == "DC0_H0_VM0").vnics[0]
    assert (nic.ip, nic.addresses) == ("10.30.0.11/24", ["2001:db8:30::11/64", "2001:db8:31::5/64"])
    (warning,) = [w for w in topo.description.splitlines() if "2001:db8:31::5" in w]
    assert "no prefix" in warning and "2001:db8:31::5/64" in warning
    assert not any("fe80" in w for w in topo.description.splitlines())
    assert [p.message for p in validate(topo) if p.severity == "error"] == []


def test_addresses_of_both_families_with_their_prefixes():
    """Tools' structures as pyVmomi gives them: ipConfig with prefixes, plain ``ipAddress`` without, the
    guest's IPv6 routes, a link-local address, and another vNIC's entry."""
    entry = vim.net.IpConfigInfo.IpAddress
    net = vim.vm.GuestInfo.NicInfo(
        deviceConfigId=4000, macAddress="00:50:56:00:00:01",
        ipAddress=["2001:db8:40::7", "fd00:0:0:9:0:0:0:3", "10.40.0.7", "2001:0db8:0040:0000:0000:0000:0000:0007"],
        ipConfig=vim.net.IpConfigInfo(ipAddress=[
            entry(ipAddress="fe80::1", prefixLength=64), entry(ipAddress="2001:db8:40:0:0:0:0:7", prefixLength=56),
            entry(ipAddress="10.40.0.7", prefixLength=20)]))
    other = vim.vm.GuestInfo.NicInfo(deviceConfigId=4001, ipAddress=["10.99.0.1", "2001:db8:99::1"])
    route = vim.net.IpRouteConfigInfo.IpRoute
    stack = vim.vm.GuestInfo.StackInfo(ipRouteConfig=vim.net.IpRouteConfigInfo(ipRoute=[
        route(network="::", prefixLength=0), route(network="fe80::", prefixLength=64),
        route(network="fd00:0:0:9::", prefixLength=64), route(network="ff00::", prefixLength=8)]))
    got = inventory._ips([net, other], 4000, None, inventory._routes([stack]))
    assert got == [("10.40.0.7", 20), ("2001:db8:40::7", 56), ("fd00:0:0:9::3", 64)]
    assert inventory._ips([other], 4000, "00:50:56:00:00:01") == []
