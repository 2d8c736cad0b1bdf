"""SNAT and DNAT on a KVM router guest: the desired config carries the rules as the nftables NAT ruleset the
local lab loads, naming the guest's own interfaces (the guest renames its NICs to the names the host gives)."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.objects import Dnat, Proto, Snat


def _fw01_spec(design) -> dict:
    from vnetbench_kvm.desired import Boot, desired

    want = desired(design, {h.id: Boot("/k", "/i") for h in design.hosts})
    assert want.reasons == []
    return next(w.spec for w in want.wants.values() if w.kind == "domain" and w.spec["name"].endswith("-fw01"))


def test_a_kvm_router_guest_gets_its_snat_and_dnat_beside_its_filter():
    t = load(resources_dir() / "examples" / "kvm-nic-models.vnet.yaml")
    fw01 = next(vm for vm in t.vms if vm.name == "fw01")
    assert _fw01_spec(t)["nat"] is None                        # no NAT rules: no NAT table
    fw01.vnics[1].name = "uplink"                              # the design's name; in the guest it is eth1
    fw01.forwarding.snat = [Snat("10.10.0.0/24", "10.20.0.1", interface="uplink", name="out"),
                            Snat("192.168.0.0/16", "10.20.0.1")]
    fw01.forwarding.dnat = [Dnat("10.20.0.1", "10.10.0.11", Proto.TCP, 8080, 80, "web-in")]
    spec = _fw01_spec(t)
    nat = spec["nat"]
    assert "table ip vnb {" in nat and "type nat hook prerouting priority dstnat" in nat
    assert 'ip saddr 10.10.0.0/24 oifname "eth1" snat to 10.20.0.1' in nat
    assert "    ip saddr 192.168.0.0/16 snat to 10.20.0.1\n" in nat
    assert "ip daddr 10.20.0.1 tcp dport 8080 dnat to 10.10.0.11:80" in nat
    assert "vnb.nic=52:54:00:4b:00:02,10.20.0.1/24,,eth1" in spec["cmdline"].split()   # the guest's name for it
    assert spec["nft_family"] == "inet" and "nothing from e1000-a to ovs-b" in spec["nft"]   # the filter stays


def test_a_snat_rule_leaving_by_a_vnic_the_guest_lacks_translates_nothing():
    t = load(resources_dir() / "examples" / "kvm-nic-models.vnet.yaml")
    fw01 = next(vm for vm in t.vms if vm.name == "fw01")
    fw01.vnics[1].network = None                               # no network: no NIC in the guest
    fw01.forwarding.snat = [Snat("10.10.0.0/24", "10.20.0.1", interface="eth1")]
    assert "snat" not in _fw01_spec(t)["nat"]
