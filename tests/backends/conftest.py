import os

import pytest


@pytest.fixture
def lab(tmp_path):
    """A local lab backend (root mode) with its own state directory; tears down what the test deployed."""
    if os.geteuid() != 0:
        pytest.skip("needs root (the rootless test covers the other mode)")
    from vnetbench_local import LocalLabBackend

    backend = LocalLabBackend({"mode": "root", "state_dir": str(tmp_path / "state")})
    deployed: list[str] = []
    backend.deployed = deployed

    def up(design):
        deployed.append(design.id)
        results = backend.apply(backend.plan(design))
        failed = [f"{r.change.key}: {r.error}" for r in results if not r.ok]
        assert not failed, failed
        return results

    backend.up = up
    yield backend
    for design_id in deployed:
        backend.teardown(design_id)
