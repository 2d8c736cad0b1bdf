"""Import of what a vCenter holds of LAGs and uplink orders, from an inventory snapshot (no server): a switch whose
own ports send through a LAG, a LAG hashing in a way the model has no word for, a portgroup's order of dvUplinks
turned into each member's pNICs."""

from __future__ import annotations

from types import SimpleNamespace

from vnetbench.model import LacpMode, LagHash, Security, Teaming, Uplink
from vnetbench_vsphere.importer import to_topology
from vnetbench_vsphere.inventory import DvpgInfo, DvsInfo, HostInfo, Inventory, PNicInfo
from vnetbench_vsphere.lacp import LagInfo


def ref(moid: str) -> SimpleNamespace:
    return SimpleNamespace(_moId=moid)


def test_a_switch_through_its_lag_and_a_portgroup_order_import():
    host = HostInfo(ref("host-1"), "esx1", "DC0", None, None, None, [], 8,
                    pnics=[PNicInfo("vmnic0", "k0", 10000), PNicInfo("vmnic1", "k1", 10000),
                           PNicInfo("vmnic2", "k2", 10000)])
    dvs = DvsInfo(ref("dvs-1"), "dvs", "uuid", "DC0", "", ["host-1"], 9000, "1",
                  {"host-1": ["vmnic0", "vmnic1", "vmnic2"]}, uplink_names=["Uplink 1", "Uplink 2"],
                  order=(["lag1"], []), lacp_version="multipleLag",
                  lags=[LagInfo("lacp-1", "lag1", "passive", "srcDestIpVlan", 1, ["300"])],
                  ports={"host-1": {"vmnic0": "100", "vmnic1": "101", "vmnic2": "300"}})
    pg = DvpgInfo(ref("dvportgroup-2"), "web", "key-2", "dvs", "DC0", 10, Security(), "", "1", False,
                  order=(["Uplink 2"], ["Uplink 1"]))
    own = DvpgInfo(ref("dvportgroup-3"), "db", "key-3", "dvs", "DC0", 20, Security(), "", "1", False)
    topo = to_topology(Inventory(True, hosts=[host], dvses=[dvs], dvpgs=[pg, own]), "lab").topology
    (sw,) = topo.switches
    (lag,) = sw.lags
    assert (lag.name, lag.mode, lag.hash, lag.pnics) == ("lag1", LacpMode.PASSIVE, LagHash.SRC_DST_IP,
                                                        ["host-1-vmnic2"])
    assert sw.teaming == Teaming(lag=lag.id)
    assert [u.pnic for u in sw.uplinks] == ["host-1-vmnic0", "host-1-vmnic1"], "a LAG member is no standalone uplink"
    pgs = {p.name: p for p in sw.portgroups}
    assert pgs["web"].uplinks == [Uplink("host-1-vmnic1"), Uplink("host-1-vmnic0", standby=True)]
    assert pgs["db"].uplinks is None and pgs["db"].teaming is None, "it inherits the switch's LAG"
    assert any("srcDestIpVlan" in w and "src-dst-ip" in w for w in topo.description.splitlines())
