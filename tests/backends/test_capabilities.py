"""The contract refuses, before any change, what a backend's capabilities say it cannot build."""

from __future__ import annotations

from types import SimpleNamespace

from vnetbench import resources_dir
from vnetbench.backends import Backend, Capabilities
from vnetbench.model import ForwardMode, SwitchKind, Topology, load

EXAMPLES = resources_dir() / "examples"
EVERYTHING = dict(switch_kinds=frozenset(SwitchKind), vlan_trunks=True, firewalls=True, bridged_firewalls=True,
                  nsx=True)


def reasons(design: Topology, **limits) -> list[str]:
    """``Backend.unsupported`` reads only ``capabilities`` and ``title``: a stand-in carries just those."""
    backend = SimpleNamespace(capabilities=Capabilities(**(EVERYTHING | limits)), title="Limited")
    return Backend.unsupported(backend, design)


def test_a_design_within_the_capabilities_passes():
    for example in EXAMPLES.glob("*.vnet.yaml"):
        assert reasons(load(example)) == [], example.name


def test_each_missing_capability_refuses_what_needs_it_by_name():
    fw = load(EXAMPLES / "esx-firewall-vm.vnet.yaml")
    assert any("fw01" in r and "forwarding VMs" in r for r in reasons(fw, firewalls=False))
    assert reasons(fw, bridged_firewalls=False) == []
    next(vm for vm in fw.vms if vm.name == "fw01").forwarding.mode = ForwardMode.BRIDGED
    assert reasons(fw, bridged_firewalls=False) == ["'fw01' is a bridged firewall, which Limited cannot build"]

    nsx = load(EXAMPLES / "nsx-dfw.vnet.yaml")
    assert any("NSX" in r for r in reasons(nsx, nsx=False))

    four = load(EXAMPLES / "esx-four-cases.vnet.yaml")
    assert reasons(four, vlan_trunks=False) == []
    four.switches[0].portgroups[0].vlan = 4095  # a vSS trunk
    assert reasons(four, vlan_trunks=False) == ["portgroup 'VLAN300-A' is a VLAN trunk, which Limited cannot build"]

    kvm = load(EXAMPLES / "kvm-tap-macvtap.vnet.yaml")
    assert any("macvtap" in r for r in reasons(kvm, switch_kinds=frozenset({SwitchKind.LINUX_BRIDGE})))
