"""An endpoint that is this machine at 127.0.0.1, for tests that run real probes without a deployed lab (the
traffic stays on loopback). Importable from every test folder: pytest puts ``tests/`` on the path for its
``conftest.py``."""

from __future__ import annotations

import shutil

from vnetbench.backends import Endpoint
from vnetbench.backends.process import ProcessCommand


class LoopbackEndpoint(Endpoint):
    """Runs the probe here, against 127.0.0.1."""

    def __init__(self, name: str) -> None:
        self.name = name

    def address(self, vnic_id: str | None = None) -> str:
        return "127.0.0.1"

    def start(self, argv, cpu=None):
        return ProcessCommand(list(argv), list(argv))

    def has_program(self, program: str) -> bool:
        return shutil.which(program) is not None
