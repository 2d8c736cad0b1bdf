"""Docks declare what they need (issue 31, after Spyder's on_plugin_available): the measure dock declares that it
uses the deploy dock's connection, and the window hands it over when it is made or closed; the dock never reads
the workbench's connection itself."""

from __future__ import annotations

import pytest

from loopback_backend import LoopbackBackend
from panel_designs import two_vms_one_switch
from vnetbench.gui.measure import MeasureDock
from vnetbench.gui.needs import UsesConnection
from vnetbench.gui.workbench import Workbench

pytestmark = pytest.mark.gui


def test_the_window_hands_the_deploy_connection_to_the_docks_that_declare_it(window, qtbot):
    win = window
    users = [name for name, dock in win.docks.items() if isinstance(dock, UsesConnection)]
    assert users == ["MeasureDock"]
    measure = win.docks["MeasureDock"]
    backend = LoopbackBackend({})
    win.workbench.set_connected_backend(backend)  # what the deploy dock does once connected
    qtbot.waitUntil(lambda: measure.connection is backend, timeout=3000)
    assert measure._backend() is backend  # measured through that very connection
    win.workbench.set_connected_backend(None)
    qtbot.waitUntil(lambda: measure.connection is None, timeout=3000)


def test_a_dock_on_its_own_is_given_what_it_needs_not_left_to_read_it(qtbot):
    workbench = Workbench(two_vms_one_switch())
    dock = MeasureDock(workbench)
    qtbot.addWidget(dock)
    workbench.set_connected_backend(LoopbackBackend({}))
    qtbot.wait(20)
    assert dock.connection is None  # nobody handed it over: it does not look behind the workbench's back
    backend = LoopbackBackend({})
    dock.connection_available(backend)
    assert dock._backend() is backend
