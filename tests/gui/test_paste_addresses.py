"""Paste (issue 29): a pasted VM lands beside its original, never on it, and takes the next free address in its
segment's subnet, not a copy of the original's."""

from __future__ import annotations

import ipaddress

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest

from vnetbench import resources_dir
from vnetbench.model.addressing import used_addresses

pytestmark = pytest.mark.gui


def press(win, sequence: QKeySequence.StandardKey) -> None:
    """A shortcut typed on the canvas."""
    combo = QKeySequence(sequence)[0]
    win.view.setFocus()
    QTest.keyClick(win.view, combo.key(), combo.keyboardModifiers())


def test_a_pasted_vm_lands_beside_its_original_with_the_next_free_address(window, qtbot):
    win = window
    win.open_example(str(resources_dir() / "examples" / "esx-four-cases.vnet.yaml"))
    qtbot.waitUntil(lambda: any(vm.name == "web01" for vm in win.workbench.topology.vms), timeout=10_000)
    web01 = next(vm for vm in win.workbench.topology.vms if vm.name == "web01")
    original = ipaddress.ip_interface(web01.vnics[0].ip)
    win.workbench.select([web01.id])
    press(win, QKeySequence.StandardKey.Copy)
    steps = win.workbench.undo_stack.count()
    copies = []
    for _ in range(2):
        press(win, QKeySequence.StandardKey.Paste)
        (pasted,) = win.workbench.selection
        copies.append(win.workbench.document.index.get(pasted))
    assert win.workbench.undo_stack.count() == steps + 2  # one undo step each
    taken = {original}
    for copy in copies:
        address = ipaddress.ip_interface(copy.vnics[0].ip)
        assert address.network == original.network and address not in taken  # its own, in the same subnet
        taken.add(address)
        nic = copy.vnics[0]
        others = {a for oid, entry in win.workbench.document.index.entries.items()
                  for a in [getattr(entry.obj, "ip", None)] if a and oid != nic.id}
        used = {ipaddress.ip_interface(a).ip for a in others}
        assert address.ip not in used
        # the next free one: everything between the original and it is someone's
        skipped = [ipaddress.ip_address(n) for n in range(int(original.ip) + 1, int(address.ip))]
        assert all(a in used for a in skipped), skipped
        assert nic.gateway == web01.vnics[0].gateway  # the same segment, the same gateway
        box = win.scene.node_rect(copy.id)
        assert not box.intersects(win.scene.node_rect(web01.id))  # beside its original, not on it
    assert len({str(c.vnics[0].ip) for c in copies}) == 2
    # web02 holds .12, so the first copy of .11 skips it
    assert ipaddress.ip_interface(copies[0].vnics[0].ip).ip > ipaddress.ip_address("10.30.0.12")
    assert ipaddress.ip_address("10.30.0.12") in used_addresses(win.workbench.document.index)
    win.workbench.undo_stack.undo()
    win.workbench.undo_stack.undo()
    assert [vm.id for vm in win.workbench.topology.vms if vm.name.startswith("web01")] == [web01.id]
