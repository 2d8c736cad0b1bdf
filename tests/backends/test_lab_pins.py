"""Pinned vNICs in the real local lab: each leaves through its own uplink, and verify confirms every pair with
the pNIC counters (the "half my VMs lost the network" example with every app server pinned)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_designs import unique_id
from test_verify_lab import _verify

from vnetbench.measure.verify import Outcome
from vnetbench.model import load

pytestmark = [pytest.mark.lab, pytest.mark.slow]

HALF_LOST = Path(__file__).resolve().parents[2] / "resources" / "examples" / "esx-teaming-half-lost.vnet.yaml"


@pytest.mark.parametrize("tor_b_carries", ["20", "10,20"])
def test_pinned_vnics_cross_their_own_uplink(lab, tor_b_carries):
    design = load(HALF_LOST)
    design.id = unique_id("pins")
    vms = {v.name: v for v in design.vms}
    vms["app01"].vnics[0].uplink = "pnic-esx01-vmnic1"      # to tor-b, whose port may drop VLAN 10
    vms["app02"].vnics[0].uplink = "pnic-esx01-vmnic0"
    port = next(p for ps in design.physical_switches for p in ps.ports if p.id == "port-tor-b-gi1-0-1")
    port.allowed = tor_b_carries
    lab.up(design)
    result = _verify(lab, design)
    assert [(c.src_name, c.dst_name) for c in result.cells if c.outcome is not Outcome.CONFIRMED] == []
    cell = result.cell("vm-app01", "vm-db01")
    assert cell.verdict.delivered == (tor_b_carries == "10,20")
    if cell.verdict.delivered:     # through vmnic1 and tor-b, never esx01's vmnic0
        assert cell.observed_pnics == ("esx01/vmnic1", "esx02/vmnic0"), cell.observed_pnics
    assert result.cell("vm-app02", "vm-db01").observed_pnics == ("esx01/vmnic0", "esx02/vmnic0")
