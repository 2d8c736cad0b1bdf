"""Fixtures for the vSphere backend tests: a vcsim per test, an in-memory keyring, a connected backend."""

from __future__ import annotations

import os

import keyring
import pytest

from vcsim_tools import MemoryKeyring, ToolMissing, Vcsim, go_tool, make_backend


@pytest.fixture(scope="session")
def vcsim_tools() -> None:
    try:
        go_tool("vcsim")
        go_tool("govc")
    except ToolMissing as exc:
        if os.environ.get("CI"):  # CI installs Go (scripts/setup.sh): a missing tool there is a failure
            pytest.fail(str(exc))
        pytest.skip(str(exc))


@pytest.fixture
def memory_keyring():
    previous = keyring.get_keyring()
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(previous)


@pytest.fixture
def vcsim(vcsim_tools):
    sim = Vcsim()
    yield sim
    sim.stop()


@pytest.fixture
def backend(vcsim, memory_keyring, tmp_path):
    be = make_backend(vcsim, memory_keyring, tmp_path)
    be.connect()
    yield be
    be.close()
