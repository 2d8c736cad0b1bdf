"""Reject versus drop and static routes on router-like VMs, deployed for real in the local lab and verified.

A routed firewall VM rejects TCP/22 and UDP/53 and drops TCP/23 from the DMZ: verify sees a refusal at once
for the rejects and silence for the drop, as predicted. The NSX-V two-tier example (DLR default route to the
edge, the edge's route back) confirms every pair, the edge's own packets included.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vnetbench.measure.verify import Outcome, Verifier, plan_pairs
from vnetbench.model import load
from vnetbench.model.objects import Action, Proto, Rule
from vnetbench.predict import Engine

pytestmark = [pytest.mark.lab, pytest.mark.slow]

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def _verify(lab, design):
    lab.up(design)
    engine = Engine(design)
    matrix = engine.matrix()
    plans, scope, left = plan_pairs(design, matrix.endpoints, matrix.classes, engine.predict)
    return Verifier(lab, design, plans, scope, limits=left).run()


def test_a_reject_is_refused_at_once_and_a_drop_times_out(lab):
    design = load(EXAMPLES / "esx-firewall-vm.vnet.yaml")
    design.id = "lab-reject-drop"
    fw = next(vm for vm in design.vms if vm.name == "fw01")
    dmz, app = "10.30.0.0/24", "10.20.0.0/24"
    fw.forwarding.rules = [Rule(Action.REJECT, dmz, app, Proto.TCP, 22, "ssh-reject"),
                           Rule(Action.DROP, dmz, app, Proto.TCP, 23, "telnet-drop"),
                           Rule(Action.REJECT, dmz, app, Proto.UDP, 53, "dns-reject")]
    result = _verify(lab, design)
    bad = [(c.src_name, c.dst_name, [ch.detail for ch in c.contradictions]) for c in result.cells
           if c.outcome is Outcome.CONTRADICTED]
    assert bad == []
    cell = next(c for c in result.cells if (c.src_name, c.dst_name) == ("dmz01", "app01"))
    observed = {ch.what: (ch.outcome, ch.observed) for ch in cell.checks if ch.what.startswith(("tcp", "udp"))}
    assert observed == {"tcp/22": (Outcome.CONFIRMED, "refused"), "tcp/23": (Outcome.CONFIRMED, "no answer"),
                        "udp/53": (Outcome.CONFIRMED, "refused")}


def test_the_two_tier_routes_confirm_every_pair(lab):
    result = _verify(lab, load(EXAMPLES / "nsx-v-two-tier.vnet.yaml"))
    assert [(c.src_name, c.dst_name) for c in result.cells if c.outcome is not Outcome.CONFIRMED] == []
    assert {(c.src_name, c.dst_name) for c in result.cells} >= {("web01", "db01"), ("db01", "app01"),
                                                                ("esg-01", "web01")}
