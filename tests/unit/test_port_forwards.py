"""Incoming port forwards of a hosted NAT network (seed 003; VMware's [incomingtcp] / [incomingudp]): the LAN
reaches a guest at the host's address and port, only for what is forwarded; validation, the lab's nftables and
the drawing's words."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load
from vnetbench.model.objects import PortForward, Proto
from vnetbench.model.validate import validate
from vnetbench.predict import Engine, Verdict

EXAMPLE = resources_dir() / "examples" / "hosted-nat-port-forward.vnet.yaml"


def test_the_lan_reaches_the_forwarded_ports_at_the_host_address_and_nothing_else():
    engine = Engine(load(EXAMPLE))
    p = engine.predict("laptop", "web01", "tcp", 80)
    assert p.verdict is Verdict.ROUTED_VIA_PHYSICAL and p.forward.entry == ("192.168.1.10", 8080)
    assert any("VMnet8 NAT translates the destination 192.168.1.10 port 8080 to 192.168.8.20 port 80 (port "
               "forward http), and replies come back through that translation" in r for r in p.reasons)
    assert p.reverse.verdict is Verdict.ROUTED_VIA_PHYSICAL
    assert engine.predict("laptop", "web01", "udp", 161).forward.entry == ("192.168.1.10", 10161)
    for proto, port in (("tcp", 22), (None, None), ("tcp", 161)):
        q = engine.predict("laptop", "web01", proto, port)
        assert q.verdict is Verdict.UNREACHABLE, (proto, port)
        assert any("web01 sits behind VMnet8 NAT, which hides it from outside (no port forward publishes it)" in r
                   for r in q.reasons)
    assert engine.predict("build01", "web01", "tcp", 80).forward.entry is None   # its neighbour: direct
    for src, dst, verdict in engine.matrix().rows():
        assert verdict == engine.predict(src, dst).verdict, (src, dst)


def test_validation_names_a_forward_off_a_nat_network_and_bad_ports():
    t = load(EXAMPLE)
    nat = t.switches[0]
    nat.port_forwards.append(PortForward(Proto.ICMP, 70000, "192.168.8.300", 0, "bad"))
    found = {p.path: p.message for p in validate(t)}
    assert "port forward bad forwards protocol icmp" in found["switches[0].port_forwards[2].proto"]
    assert "host_port 70000, which is not a port" in found["switches[0].port_forwards[2].host_port"]
    assert "not an IPv4 address" in found["switches[0].port_forwards[2].guest"]
    t = load(EXAMPLE)
    t.switches[0].kind = t.switches[0].kind.__class__("hosted-hostonly")
    t.switches[0].uplinks = []
    assert any("is not a hosted NAT network" in p.message for p in validate(t))


def test_the_lab_forwards_with_nftables_dnat_and_lets_the_forwarded_in():
    from vnetbench_local.desired import desired_lab

    lab = desired_lab(load(EXAMPLE))
    [nat] = [r for r in lab.resources.values() if r.kind == "nft" and "VMnet8" in r.description]
    text = nat.spec["text"]
    assert 'iifname "outside" tcp dport 8080 dnat to 192.168.8.20:80' in text
    assert 'iifname "outside" udp dport 10161 dnat to 192.168.8.20:161' in text
    assert text.index("ct status dnat accept") < text.index('iifname "outside" drop')


def test_the_drawing_and_the_report_list_the_forwards(tmp_path):
    from vnetbench.layout.content import switch_details

    assert "forward tcp 8080 \u2192 192.168.8.20:80" in switch_details(load(EXAMPLE).switches[0])


def test_the_host_os_is_an_endpoint_of_its_hosted_networks(capsys):
    """``vnetbench predict --to ws1`` (it exited 2: no VM or physical host named ws1), the matrix, and the lab's
    endpoint in the host's namespace."""
    from vnetbench.cli.main import main
    from vnetbench_local.desired import desired_lab

    assert main(["predict", str(EXAMPLE), "--from", "web01", "--to", "ws1"]) == 0
    assert "web01 -> ws1: in-host" in capsys.readouterr().out
    engine = Engine(load(EXAMPLE))
    assert "host-ws1" in engine.matrix().endpoints
    assert engine.predict("ws1", "build01").verdict is Verdict.IN_HOST
    assert engine.predict("laptop", "ws1").verdict is Verdict.UNREACHABLE
    lab = desired_lab(load(EXAMPLE))
    assert lab.endpoints["host-ws1"].addresses == {"sw-ws1-vmnet8:host": "192.168.8.1/24"}
