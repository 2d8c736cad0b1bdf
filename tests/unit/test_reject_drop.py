"""Reject versus drop: both block, but the sender sees a refusal at once or a timeout. The file format, the
verdict's reasons, the nftables a lab deploys, what verify and measure expect."""

from __future__ import annotations

from types import SimpleNamespace

from builders import Action, Design, Rule, Verdict, esx_pair

from vnetbench.backends import nftables as nft
from vnetbench.measure.compare import _symptom_flags
from vnetbench.measure.verify import flow_answer, flow_expected
from vnetbench.model import loads
from vnetbench.model.fileformat import dumps
from vnetbench.model.objects import Forwarding, Proto
from vnetbench.model.schema import json_schema
from vnetbench.predict import Engine

OLD_RULE = """format_version: 1
id: t
name: t
vms:
- id: fw
  name: fw
  role: firewall
  forwarding:
    default_policy: deny
    rules:
    - action: deny
      name: old
"""


def test_an_old_deny_loads_as_drop_and_saves_as_drop():
    t = loads(OLD_RULE)
    fwd = t.vms[0].forwarding
    assert fwd.default_policy is Action.DROP and fwd.rules[0].action is Action.DROP
    assert Action.DENY is Action.DROP       # code written against the old name keeps its meaning
    text = dumps(t)
    assert "action: drop" in text and "default_policy: drop" in text and "deny" not in text
    assert json_schema()["$defs"]["Rule"]["properties"]["action"]["enum"] == ["allow", "drop", "reject", "deny"]


def _firewalled(action: Action, default: Action = Action.ALLOW) -> tuple[Design, str, str]:
    d, (h1, _), (s1, _), _ = esx_pair(vlans=(10, 20))
    pg10, pg20 = s1.portgroups
    d.fw("fw1", h1, [(pg10, "10.0.10.254/24"), (pg20, "10.0.20.254/24")], stateful=False, default=default,
         rules=[Rule(action, "10.0.10.0/24", "10.0.20.0/24", name="a-to-b")])
    d.vm("a", h1, pg10, "10.0.10.5/24", "10.0.10.254")
    d.vm("b", h1, pg20, "10.0.20.5/24", "10.0.20.254")
    return d, "a", "b"


def test_a_reject_blocks_and_says_the_sender_is_refused_at_once():
    d, a, b = _firewalled(Action.REJECT)
    p = d.predict(a, b, "tcp", 22)
    assert p.verdict is Verdict.BLOCKED and p.refused and p.forward.refused
    assert p.reasons[-1] == ("fw1 rejects it (rule 'a-to-b' (reject any 10.0.10.0/24 -> 10.0.20.0/24)): a reject "
                             "answers with a TCP RST, so the sender learns at once (no timeout).")
    udp = d.predict(a, b, "udp", 53)
    assert udp.refused and udp.reasons[-1].endswith("a reject answers with an ICMP port unreachable, so the sender "
                                                    "learns at once (no timeout).")
    assert Engine(d.t).matrix().verdict(a, b) is Verdict.BLOCKED     # still blocked in the matrix


def test_a_drop_blocks_and_says_the_sender_times_out():
    d, a, b = _firewalled(Action.DROP)
    p = d.predict(a, b, "tcp", 22)
    assert p.verdict is Verdict.BLOCKED and not p.refused
    assert p.reasons[-1].startswith("fw1 drops it (rule 'a-to-b'")
    assert p.reasons[-1].endswith(": nothing answers (a drop is silent), so the sender times out.")


def test_a_rejected_reply_leaves_the_sender_waiting():
    # the request passes (the rule names only a -> b on port 22 traffic the other way), the reply is rejected
    d, a, b = _firewalled(Action.ALLOW, default=Action.REJECT)
    p = d.predict(a, b, "tcp", 22)
    assert p.verdict is Verdict.BLOCKED and p.reverse.refused and not p.refused
    assert p.reasons[-1].startswith("the reply cannot come back: fw1 rejects it (default policy reject)")
    assert p.reasons[-1].endswith("so the sender times out.")   # the reset goes to the server, not the client
    back = type(p).from_dict(p.to_dict())
    assert back.reverse.refused and not back.refused


def test_nftables_rejects_tcp_with_a_reset_and_the_rest_with_icmp():
    def lines(proto: Proto, action: Action) -> list[str]:
        return nft.rule_lines(Rule(action, "any", "10.0.0.0/24", proto, 22 if proto is Proto.TCP else None, "r"),
                              lambda ref: None, "fw")

    assert lines(Proto.TCP, Action.REJECT) == ['ip daddr 10.0.0.0/24 tcp dport 22 reject with tcp reset comment "r"']
    assert [line.rsplit(" comment", 1)[0].split(" ")[-1] for line in lines(Proto.UDP, Action.REJECT)] == ["reject"]
    both = lines(Proto.ANY, Action.REJECT)
    assert len(both) == 2 and "meta l4proto tcp reject with tcp reset" in both[0] and both[1].endswith('reject comment "r"')
    assert lines(Proto.ANY, Action.DROP)[0].endswith('drop comment "r"')
    routed = nft.chain_body(Forwarding(stateful=False, default_policy=Action.REJECT), lambda ref: None, "fw")
    assert routed[-2:] == ['meta l4proto tcp reject with tcp reset comment "fw default reject"',
                           'reject comment "fw default reject"']
    bridged = nft.chain_body(Forwarding(rules=[Rule(Action.REJECT)], stateful=False), lambda ref: None, "fw",
                             conntrack=False)
    assert all("reject" not in line for line in bridged) and bridged[-1].startswith("meta protocol { ip, ip6 } drop")


def _probe(out: str, code: int) -> SimpleNamespace:
    return SimpleNamespace(out=out, err="", code=code)


def test_verify_expects_a_refusal_from_a_reject_and_silence_from_a_drop():
    rejected = SimpleNamespace(verdict=Verdict.BLOCKED, refused=True)
    dropped = SimpleNamespace(verdict=Verdict.BLOCKED, refused=False)
    delivered = SimpleNamespace(verdict=Verdict.IN_HOST_ROUTED, refused=False)
    refused = flow_answer("tcp", _probe("bash: connect: Connection refused", 1))
    silent = flow_answer("tcp", _probe("", 124))
    assert (refused, silent, flow_answer("udp", _probe("answered", 0))) == ("refused", "no answer", "answered")
    assert flow_expected(rejected, refused) and not flow_expected(rejected, silent)
    assert flow_expected(dropped, silent) and not flow_expected(dropped, refused)
    assert flow_expected(delivered, refused) and not flow_expected(delivered, silent)


def test_measure_flags_the_wrong_symptom():
    assert _symptom_flags(True, "refused") == [] and _symptom_flags(False, "timeout") == []
    assert "the firewall drops instead" in _symptom_flags(True, "timeout")[0].message
    assert "the firewall rejects instead" in _symptom_flags(False, "refused")[0].message
