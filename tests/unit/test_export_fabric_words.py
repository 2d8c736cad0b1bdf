"""Diagrams and the report show the fabric as built: a switch's teaming policy, LAGs and private VLAN map, a
portgroup's private VLAN role and teaming override, a physical switch's stack and port channels."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.export import Options
from vnetbench.export.dot import dot_text
from vnetbench.export.mermaid import mermaid_text
from vnetbench.export.report import report_html
from vnetbench.export.scene import build_scene
from vnetbench.layout import content as C
from vnetbench.model import load
from vnetbench.model.objects import (FailureDetection, Lag, LacpMode, LoadBalancing, PortChannel, Switch, SwitchKind,
                                     Teaming)

EXAMPLES = resources_dir() / "examples"


def test_the_words_of_a_teamed_switch_its_lag_and_a_portgroup_override():
    sw = Switch("s", "dvs", SwitchKind.VDS, lags=[Lag("l1", "lag1", ["a", "b"], LacpMode.ACTIVE)],
                teaming=Teaming(LoadBalancing.IP_HASH, FailureDetection.BEACON, lag="l1"))
    assert "teaming: IP hash \u00b7 beacon probing \u00b7 via LAG lag1" in C.switch_details(sw)
    assert "LAG lag1 \u00b7 LACP active \u00b7 2 pNICs" in C.switch_details(sw)
    plain = Switch("p", "vSwitch0", SwitchKind.VSS)
    assert C.switch_details(plain) == ["standard vSwitch"]       # no policy: nothing new to say


def test_private_vlan_roles_on_portgroups_and_the_map_on_the_switch():
    t = load(EXAMPLES / "esx-private-vlans.vnet.yaml")
    sw = t.switches[0]
    assert "PVLAN 200: 201 isolated, 202 community, 203 community" in C.switch_details(sw)
    roles = {pg.name: C.portgroup_details(pg, sw)[0] for pg in sw.portgroups}
    assert roles == {"DMZ-Backup": "PVLAN 200 promiscuous", "DMZ-Web": "PVLAN 201 isolated (200)",
                     "DMZ-DB": "PVLAN 202 community (200)", "DMZ-App": "PVLAN 203 community (200)"}
    mermaid, dot = mermaid_text(build_scene(t)), dot_text(build_scene(t))
    for words in ("PVLAN 201 isolated (200)", "PVLAN 200 promiscuous"):
        assert words in mermaid and words in dot


def test_port_channels_and_teaming_in_the_diagrams_and_the_report():
    t = load(EXAMPLES / "esx-ip-hash-port-channel.vnet.yaml")
    ps = t.physical_switches[0]
    assert "Po1 \u00b7 static \u00b7 Gi1/0/1, Gi1/0/2" in C.physical_switch_details(ps)
    assert "teaming: IP hash" in mermaid_text(build_scene(t)) and "Po1 \u00b7 static" in dot_text(build_scene(t))
    html = report_html(t, Options())
    assert "teaming: IP hash" in html and "port channel Po1 (static): Gi1/0/1 + Gi1/0/2" in html
    ps.port_channels = [PortChannel("po9", "Po9", [ps.ports[0].id], LacpMode.PASSIVE)]
    ps.stack = "core"
    assert C.physical_switch_details(ps)[:2] == ["3 ports \u00b7 stack core", "Po9 \u00b7 LACP passive \u00b7 Gi1/0/1"]


def test_the_report_names_private_vlan_roles():
    html = report_html(load(EXAMPLES / "esx-private-vlans.vnet.yaml"), Options())
    assert "PVLAN 201 isolated (200)" in html and "PVLAN 200: 201 isolated, 202 community, 203 community" in html


def test_a_vlan_filtering_bridge_and_its_ports_vlans_in_the_diagrams():
    """The box of a VLAN-aware Linux bridge says so, and each guest shows its port's VLANs as ``bridge vlan``
    would: one VLAN as PVID untagged, a trunk port its VLANs and whether it has a PVID."""
    design = load(resources_dir() / "examples" / "kvm-bonded-vlan-filtering-bridge.vnet.yaml")
    (br0,) = design.switches
    assert C.switch_details(br0)[0] == "Linux bridge \u00b7 VLAN filtering"
    lines = {vm.name: C.vm_details(vm)[0] for vm in design.vms}
    assert lines["web01"].endswith("PVID 10 untagged") and lines["db01"].endswith("PVID 20 untagged")
    assert lines["tools01"].endswith("VLANs 10,20 no PVID")
    text = mermaid_text(build_scene(design))
    assert "Linux bridge \u00b7 VLAN filtering" in text and "PVID 10" in text and "PVID 20" in text
