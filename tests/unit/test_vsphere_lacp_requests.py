"""The vSphere requests for LACP groups and explicit uplink orders that vcsim cannot answer or keep
(``UpdateDVSLacpGroupConfig``, a member's pNICs on a LAG's ports), checked as pyVmomi would send them: the
managed object's stub here records each call instead of sending it."""

from __future__ import annotations

from types import SimpleNamespace

from pyVmomi import vim
from vnetbench.model import LacpMode, LagHash
from vnetbench_vsphere import apply
from vnetbench_vsphere.lacp import LagInfo, lag_data, lag_hash, lag_specs, read_lags
from vnetbench_vsphere.teaming import dvs_teaming

DVS = vim.dvs.VmwareDistributedVirtualSwitch


class RecordingStub:
    """Stands in for pyVmomi's SOAP stub: keeps (method, arguments) and answers a task; property reads answer
    what the test put in ``properties``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list]] = []
        self.properties: dict[str, object] = {}

    def InvokeMethod(self, mo, info, args):   # noqa: N802 - pyVmomi's name
        self.calls.append((info.wsdlName, list(args)))
        return vim.Task(f"task-{len(self.calls)}", self)

    def InvokeAccessor(self, mo, info):   # noqa: N802 - pyVmomi's name: a property read
        return self.properties[info.name]


def test_lag_specs_carry_name_mode_algorithm_and_uplink_count():
    want = [lag_data("lag1", LacpMode.ACTIVE, LagHash.SRC_DST_IP, 2),
            lag_data("lag2", LacpMode.PASSIVE, LagHash.SRC_DST_IP_PORT_VLAN, 4)]
    held = [LagInfo("key-2", "lag2", "active", "srcDestIpTcpUdpPortVlan", 4, ["10", "11", "12", "13"]),
            LagInfo("key-9", "old", "active", "srcDestIp", 2, ["20", "21"])]
    specs = lag_specs(want, held)
    assert [(s.operation, s.lacpGroupConfig.key, s.lacpGroupConfig.name, s.lacpGroupConfig.mode,
             s.lacpGroupConfig.loadbalanceAlgorithm, s.lacpGroupConfig.uplinkNum) for s in specs] == [
        ("remove", "key-9", "old", None, None, None),
        ("edit", "key-2", "lag2", "passive", "srcDestIpTcpUdpPortVlan", 4),
        ("add", None, "lag1", "active", "srcDestIp", 2)]
    assert all(isinstance(s, DVS.LacpGroupSpec) for s in specs)
    assert lag_specs(want, [LagInfo("k", "lag1", "active", "srcDestIp", 2), held[0]])[0].operation == "edit"


def test_lags_read_back_with_their_ports_and_hash():
    group = DVS.LacpGroupConfig(key="lacp-1", name="lag1", mode="passive", uplinkNum=2,
                                loadbalanceAlgorithm="srcDestIpVlan", uplinkPortKey=["30", "31"])
    (lag,) = read_lags([group])
    assert (lag.key, lag.name, lag.mode, lag.uplinks, lag.ports) == ("lacp-1", "lag1", "passive", 2, ["30", "31"])
    assert lag_hash("srcDestIpVlan") == (LagHash.SRC_DST_IP, False), "addresses only: fixed per pair"
    assert lag_hash("srcTcpUdpPort") == (LagHash.SRC_DST_IP_PORT_VLAN, False)
    assert lag_hash("srcDestIp") == (LagHash.SRC_DST_IP, True)


def test_the_lag_request_then_the_members_pnics_on_its_ports():
    stub = RecordingStub()
    ref = DVS("dvs-7", stub)
    host = SimpleNamespace(ref=vim.HostSystem("host-1", stub))
    dvs = SimpleNamespace(ref=ref, managed="design", lags=[])
    applier = apply.Applier(None, {}, "design", None)
    applier.inv = SimpleNamespace(dvs=lambda name, dc: dvs, host=lambda name: host)
    d = dict(datacenter="DC0", name="dvs", lags=[lag_data("lag1", LacpMode.ACTIVE, LagHash.SRC_DST_IP, 2)],
             lag_pnics={"esx1": {"lag1": ["vmnic2", "vmnic3"]}}, members={"esx1": ["vmnic0", "vmnic2", "vmnic3"]})
    task, place = applier._update_lacp(d)
    (name, (specs,)), = stub.calls
    assert name == "UpdateDVSLacpGroupConfig_Task"
    (spec,) = specs
    assert (spec.operation, spec.lacpGroupConfig.name, spec.lacpGroupConfig.mode,
            spec.lacpGroupConfig.loadbalanceAlgorithm, spec.lacpGroupConfig.uplinkNum) == \
        ("add", "lag1", "active", "srcDestIp", 2)
    # the LAG exists now with its ports; the member's pNICs go onto them
    held = DVS.LacpGroupConfig(key="k1", name="lag1", mode="active", uplinkNum=2, uplinkPortKey=["40", "41"])
    stub.properties["config"] = SimpleNamespace(configVersion="5", lacpGroupConfig=[held], host=[object()])
    place(task)
    name, (reconfig,) = stub.calls[1]
    assert name == "ReconfigureDvs_Task"
    (member,) = reconfig.host
    assert member.operation == "edit" and member.host is host.ref
    assert [(s.pnicDevice, s.uplinkPortKey) for s in member.backing.pnicSpec] == \
        [("vmnic0", None), ("vmnic2", "40"), ("vmnic3", "41")]
    assert reconfig.defaultPortConfig is None, "the switch's own ports do not send through the LAG"


def test_a_switch_sending_through_its_lag_says_so_once_the_lag_exists():
    stub = RecordingStub()
    dvs = SimpleNamespace(ref=DVS("dvs-7", stub), managed="design", lags=[])
    applier = apply.Applier(None, {}, "design", None)
    applier.inv = SimpleNamespace(dvs=lambda name, dc: dvs)
    d = dict(datacenter="DC0", name="dvs", lags=[lag_data("lag1", LacpMode.PASSIVE, LagHash.SRC_DST_IP, 1)],
             lag_pnics={}, members={}, teaming=None, order=[["lag1"], []])
    _, place = applier._update_lacp(d)
    stub.properties["config"] = SimpleNamespace(configVersion="2", lacpGroupConfig=[], host=[])
    place(None)
    name, (reconfig,) = stub.calls[1]
    assert name == "ReconfigureDvs_Task" and not reconfig.host
    order = reconfig.defaultPortConfig.uplinkTeamingPolicy.uplinkPortOrder
    assert (list(order.activeUplinkPort), list(order.standbyUplinkPort)) == (["lag1"], [])


def test_a_pnic_waits_off_the_switch_until_its_lag_exists():
    backing = apply.pnic_backing(["vmnic0", "vmnic1"], {}, {"vmnic1"})
    assert [s.pnicDevice for s in backing.pnicSpec] == ["vmnic0"], "never on a standalone uplink"


def test_the_switch_and_portgroup_requests_name_uplinks_and_the_lag(monkeypatch):
    sent = {}
    monkeypatch.setattr(apply.Applier, "_dc", lambda self, name: SimpleNamespace(network_folder=SimpleNamespace(
        CreateDVS_Task=lambda spec: sent.setdefault("create", spec))))
    applier = apply.Applier(None, {}, "design", None)
    applier.inv = SimpleNamespace()
    applier._create_dvswitch(dict(datacenter="DC0", name="dvs", mtu=1500, add={}, uplinks=["Uplink 1", "Uplink 2"],
                                  lacp="multipleLag", order=[["lag1"], []]))
    config = sent["create"].configSpec
    assert config.lacpApiVersion == "multipleLag"
    assert list(config.uplinkPortPolicy.uplinkPortName) == ["Uplink 1", "Uplink 2"]
    assert list(config.defaultPortConfig.uplinkTeamingPolicy.uplinkPortOrder.activeUplinkPort) == ["lag1"]
    pg = apply.dvportgroup_spec(dict(name="pg", vlan="10", ranges=[], pvlan=None, teaming=None,
                                     order=[["Uplink 2"], ["Uplink 1"]],
                                     security=dict(promiscuous=False, mac_changes=True, forged_transmits=True)),
                                "design")
    order = pg.defaultPortConfig.uplinkTeamingPolicy.uplinkPortOrder
    assert (order.inherited, list(order.activeUplinkPort), list(order.standbyUplinkPort)) == \
        (False, ["Uplink 2"], ["Uplink 1"])
    assert pg.defaultPortConfig.uplinkTeamingPolicy.policy is None, "an order alone leaves the policy inherited"
    assert dvs_teaming(None, None) is None
