"""An Open vSwitch takes a private VLAN map in the inspector as a vDS does (issue 23: OVS builds private VLANs
from OpenFlow rules), and its portgroups name a secondary; a Linux bridge offers neither."""

from __future__ import annotations

from canvas_helpers import type_into


def test_an_ovs_switch_edits_its_private_vlan_map_and_its_portgroups_name_a_secondary(window):
    win = window
    host = win.editor.add("host-kvm", 0, 0)
    ovs = win.editor.add("switch-ovs", 20, 60, host)
    win.workbench.select([ovs])
    assert "pvlans" in win.inspector.fields
    sw = next(s for s in win.workbench.topology.switches if s.id == ovs)
    win.editor.add_element(sw, "pvlans")           # the table's add button: one undoable edit
    assert len(sw.pvlans) == 1
    pg = win.editor.add("portgroup", 40, 100, ovs)
    win.workbench.select([pg])
    assert "pvlan" in win.inspector.fields
    type_into(win, "pvlan", "201")
    assert sw.portgroups[0].pvlan == 201
    bridge = win.editor.add("switch-linux-bridge", 300, 60, host)
    win.workbench.select([bridge])
    assert "pvlans" not in win.inspector.fields
