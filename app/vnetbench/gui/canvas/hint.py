"""What an empty canvas says: how to start, and the gestures that build a design.

A label over the middle of the view, shown only while the design has nothing in it (never over a large design
still being drawn); it lets every mouse event through, so dropping onto it drops onto the canvas.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QGraphicsView, QLabel

from ...model import Topology
from ..signals import connect_weakly
from .scene import DesignScene

HINT = (
    "<p style='font-size:15px'><b>Start by dragging a host from the palette</b> (ESXi, KVM or a hosted "
    "hypervisor).</p>"
    "<p>Drop a vSwitch into the host (it takes a free pNIC as its uplink), portgroups into the vSwitch, "
    "and VMs into the host.</p>"
    "<p>Connect by dragging from a dot: a <b>vNIC</b> onto a portgroup; a <b>pNIC</b> onto a vSwitch (its "
    "uplink) or onto a physical switch port (a cable).</p>"
    "<p>Or open a bundled design: <b>File &gt; Open Example</b>.</p>"
)


def empty(topology: Topology) -> bool:
    """Whether the design holds nothing the canvas draws."""
    t = topology
    return not any((t.hosts, t.switches, t.vms, t.physical_switches, t.physical_routers, t.physical_hosts,
                    t.nsx.dlrs, t.layout.notes))


class CanvasHint(QLabel):
    def __init__(self, view: QGraphicsView, scene: DesignScene) -> None:
        super().__init__(view.viewport())
        self.view, self.scene = view, scene
        self.setObjectName("canvasHint")
        self.setText(HINT)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setStyleSheet("QLabel#canvasHint { color: palette(placeholder-text); background: transparent; }")
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.update_shown)
        view.viewport().installEventFilter(self)
        connect_weakly(scene.workbench.designChanged, self, "_changed")
        self.update_shown()

    def _changed(self, *_: object) -> None:
        self._timer.start()  # after the scene has drawn the change

    def update_shown(self) -> None:
        self.scene.flush()
        self.setVisible(not self.scene.nodes and empty(self.scene.workbench.topology))
        self._centre()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._centre()
        return False

    def _centre(self) -> None:
        area = self.view.viewport().rect()
        width = min(520, area.width() - 40)
        self.setFixedWidth(max(width, 120))
        self.adjustSize()
        self.move(area.center().x() - self.width() // 2, area.center().y() - self.height() // 2)
