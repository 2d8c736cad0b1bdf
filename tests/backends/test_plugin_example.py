"""A third-party plugin is one entry point: the example plugin is found, works, and a broken one is listed."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest
from lab_designs import campus

from vnetbench.backends import Op, Unsupported, backend_class, discover
from vnetbench.backends import discovery
from vnetbench.model import SwitchKind

EXAMPLE = Path(__file__).parent / "example_plugin"


@pytest.fixture
def plugins(monkeypatch):
    """The installed plugins plus the example and a broken one, as if their packages were installed."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    real = discovery.entry_points
    extra = [EntryPoint("notebook", "vnetbench_notebook:NotebookBackend", discovery.GROUP),
             EntryPoint("broken", "vnetbench_no_such_plugin:Backend", discovery.GROUP),
             EntryPoint("notabackend", "json:dumps", discovery.GROUP)]
    monkeypatch.setattr(discovery, "entry_points", lambda group: [*real(group=group), *extra])
    yield
    sys.modules.pop("vnetbench_notebook", None)


def test_discovery_lists_the_example_and_reports_broken_plugins(plugins):
    found = {p.name: p for p in discover()}
    assert found["local"].ok and discover()[0].name == "local"
    assert found["notebook"].ok and found["notebook"].backend.title.startswith("JSON notebook")
    assert not found["broken"].ok and "ModuleNotFoundError" in found["broken"].error
    assert not found["notabackend"].ok and "not a vnetbench Backend" in found["notabackend"].error
    with pytest.raises(LookupError, match="failed to load"):
        backend_class("broken")


def test_the_example_plugin_follows_the_contract(plugins, tmp_path):
    backend = backend_class("notebook")({"path": str(tmp_path / "nb.json")})
    design = campus(vms_per_host=1, hosts=2)
    plan = backend.plan(design)
    assert [c.op for c in plan.changes] == [Op.CREATE, Op.CREATE]
    seen = []
    assert all(r.ok for r in backend.apply(plan, lambda done, total, msg: seen.append((done, total))))
    assert seen == [(1, 2), (2, 2)] and backend.plan(design).empty
    ep = backend.endpoint(design, "h0v0")
    cmd = ep.start(["echo", "hello"])
    assert list(cmd.lines()) == ["hello"] and cmd.wait(5) == 0
    assert len(backend.teardown(design.id)) == 2 and not backend.plan(design).empty
    design.switches[0].kind = SwitchKind.OVS
    with pytest.raises(Unsupported, match="ovs"):
        backend.plan(design)
