"""The cycle collector paused while a network compiles and a matrix is built (``predict.collector``): it runs
again afterwards, also when the build fails, and a design's routes keep their prefix keys for the tables."""

from __future__ import annotations

import gc

import pytest
from builders import Design, VmRole

from vnetbench.model.objects import Route
from vnetbench.predict import Engine
from vnetbench.predict.collector import paused
from vnetbench.predict.routes import network_key


def test_the_collector_is_paused_inside_and_runs_again_after():
    assert gc.isenabled()
    with paused():
        assert not gc.isenabled()
        with paused():             # nested: the outer block turns it back on
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_failing_build_turns_the_collector_back_on():
    with pytest.raises(RuntimeError), paused():
        raise RuntimeError("stopped")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off():
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def _routed() -> Design:
    d = Design()
    h = d.host("esx1")
    sw = d.switch(h, "vSwitch0")
    net_a, net_b = d.pg(sw, "A", 11), d.pg(sw, "B", 12)
    d.vm("a", h, net_a, "10.1.0.10/24", "10.1.0.1")
    d.vm("b", h, net_b, "10.2.0.10/24", "10.2.0.1")
    r = d.fw("r", h, [(net_a, "10.1.0.1/24"), (net_b, "10.2.0.1/24")], role=VmRole.ROUTER, stateful=False)
    r.forwarding.routes = [Route("10.7.0.0/16", "10.2.0.9"), Route("10.7.1.77/24", "10.1.0.9"),
                           Route("bad", "10.1.0.9")]
    return d


def test_engine_leaves_the_collector_on_and_routes_keep_their_keys():
    engine = Engine(_routed().t)
    engine.matrix()
    assert gc.isenabled()
    device = engine.network.device_by_id["r"]
    assert device.route_keys == [network_key(prefix) for prefix, _ in device.routes]
    assert device.route_keys[:2] == [(0x0A070000, 16), (0x0A070100, 24)]   # host bits cleared, "bad" left out


def test_a_stopped_matrix_turns_the_collector_back_on():
    engine = Engine(_routed().t)

    def stop() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        engine.matrix(check=stop)
    assert gc.isenabled()
