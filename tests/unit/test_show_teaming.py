"""``vnetbench show`` tells the teaming policy, pins, port channels and bridge VLANs a design holds."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.cli.main import main

EXAMPLES = resources_dir() / "examples"


def shown(capsys, name: str) -> str:
    assert main(["show", str(EXAMPLES / f"{name}.vnet.yaml")]) == 0
    return capsys.readouterr().out


def test_the_inventory_names_the_new_constructs(capsys):
    out = shown(capsys, "esx-teaming-half-lost")
    assert "teaming: port-id, link-status, notify switches, failback" in out
    assert "pinned to esx01/vmnic0" in out
    assert "port channel Po1  static: tor1/Gi1/0/1, tor1/Gi1/0/2" in shown(capsys, "esx-ip-hash-port-channel")
    out = shown(capsys, "kvm-vlan-filtering-bridge")
    assert "VLAN filtering" in out and "(VLANs 10, pvid 10, untagged 10)" in out
    assert "pvid none, untagged none" in out
