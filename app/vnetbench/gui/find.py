"""Find (Ctrl+F): jump to a VM, host, portgroup, switch, IP address or MAC address as you type.

Matches are listed while typing (whole name first, then names that start with the text, then any that hold it);
Enter or a click selects the object and centres the canvas on it, zooming in far enough to read it. The index
of what can be found is rebuilt only when the design changes, so a keystroke on a 10,000-VM design searches a
list, not the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QToolButton, QWidget

from ..model import Topology
from .signals import connect_weakly

LIMIT = 50
READABLE_ZOOM = 0.8
_KIND_ORDER = {"vm": 0, "host": 1, "portgroup": 2, "switch": 3, "physical_switch": 4, "physical_router": 5,
               "physical_host": 6, "vnic": 7, "host_nic": 8, "router_interface": 9, "port": 10, "dlr": 11}


@dataclass(frozen=True)
class Match:
    oid: str     # what to select
    kind: str
    text: str    # what matched (a name, an address)
    label: str   # how the list shows it


def entries(topology: Topology) -> list[tuple[str, Match]]:
    """Everything that can be found, as (lower-case text, match)."""
    out: list[tuple[str, Match]] = []

    def add(oid: str, kind: str, text: str | None, label: str) -> None:
        if text:
            out.append((text.lower(), Match(oid, kind, text, label)))

    def addresses(oid: str, kind: str, owner: str, nic) -> None:
        """A NIC's address and MAC, both leading to its owner."""
        for text in ((nic.ip or "").split("/")[0], getattr(nic, "mac", None)):
            add(oid, kind, text, f"{text}  \u2014 {owner} {nic.name}")

    for host in topology.hosts:
        add(host.id, "host", host.name, f"{host.name}  \u2014 host")
    for sw in topology.switches:
        add(sw.id, "switch", sw.name, f"{sw.name}  \u2014 switch")
        for pg in sw.portgroups:
            add(pg.id, "portgroup", pg.name, f"{pg.name}  \u2014 portgroup on {sw.name}")
    for vm in topology.vms:
        add(vm.id, "vm", vm.name, f"{vm.name}  \u2014 VM")
        for nic in vm.vnics:
            addresses(vm.id, "vnic", vm.name, nic)
    for ps in topology.physical_switches:
        add(ps.id, "physical_switch", ps.name, f"{ps.name}  \u2014 physical switch")
    for rt in topology.physical_routers:
        add(rt.id, "physical_router", rt.name, f"{rt.name}  \u2014 router")
        for itf in rt.interfaces:
            addresses(rt.id, "router_interface", rt.name, itf)
    for ph in topology.physical_hosts:
        add(ph.id, "physical_host", ph.name, f"{ph.name}  \u2014 physical host")
        for nic in ph.nics:
            addresses(ph.id, "host_nic", ph.name, nic)
    for dlr in topology.nsx.dlrs:
        add(dlr.id, "dlr", dlr.name, f"{dlr.name}  \u2014 NSX DLR")
    return out


def search(index: list[tuple[str, Match]], text: str, limit: int = LIMIT) -> tuple[list[Match], int]:
    """The best ``limit`` matches for ``text`` (case-insensitive) and how many there are in all."""
    needle = text.strip().lower()
    if not needle:
        return [], 0
    ranked = []
    for key, match in index:
        at = key.find(needle)
        if at < 0:
            continue
        rank = 0 if key == needle else 1 if at == 0 else 2
        ranked.append((rank, _KIND_ORDER.get(match.kind, 99), key, match))
    ranked.sort(key=lambda r: r[:3])
    return [r[3] for r in ranked[:limit]], len(ranked)


class FindBar(QWidget):
    """The find field and its list of matches, shown above the canvas by Ctrl+F and hidden by Esc."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self._index: list[tuple[str, Match]] | None = None
        self.field = QLineEdit(self)
        self.field.setPlaceholderText("Find a VM, host, portgroup, IP or MAC address")
        self.field.setClearButtonEnabled(True)
        self.count = QLabel(self)
        close = QToolButton(self)
        close.setText("\u2715")
        close.setToolTip("Close (Esc)")
        close.clicked.connect(self.close_bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        row.addWidget(QLabel("Find:", self))
        row.addWidget(self.field, 1)
        row.addWidget(self.count)
        row.addWidget(close)
        self.results = QListWidget(window)  # floats over the canvas, under the field
        self.results.setWindowFlags(Qt.WindowType.ToolTip)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.results.itemClicked.connect(lambda item: self.go(item.data(Qt.ItemDataRole.UserRole)))
        self.field.textEdited.connect(self._typed)
        self.field.returnPressed.connect(self._enter)
        self.field.installEventFilter(self)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(60)
        self._debounce.timeout.connect(self.refresh)
        connect_weakly(window.workbench.designChanged, self, "_design_changed")
        self.toolbar = window.addToolBar("Find")
        self.toolbar.setObjectName("FindToolbar")
        self.toolbar.setMovable(False)
        self.toolbar.addWidget(self)
        self.toolbar.hide()

    # --- the index ---------------------------------------------------------------------------------------

    def _design_changed(self, *_: object) -> None:
        self._index = None
        if self.toolbar.isVisible() and self.field.text():
            self._debounce.start()

    def index(self) -> list[tuple[str, Match]]:
        if self._index is None:
            self._index = entries(self.window.workbench.topology)
        return self._index

    # --- showing -------------------------------------------------------------------------------------------

    def open(self) -> None:
        self.toolbar.show()
        self.field.setFocus()
        self.field.selectAll()
        if self.field.text():
            self.refresh()

    def close_bar(self) -> None:
        self.results.hide()
        self.toolbar.hide()
        self.window.view.setFocus()

    def matches(self) -> list[Match]:
        return [self.results.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.results.count())]

    def _typed(self, _: str) -> None:
        self._debounce.start()

    def refresh(self) -> None:
        found, total = search(self.index(), self.field.text())
        self.results.clear()
        for match in found:
            item = QListWidgetItem(match.label)
            item.setData(Qt.ItemDataRole.UserRole, match)
            self.results.addItem(item)
        text = self.field.text().strip()
        self.count.setText("" if not text else f"{total} match{'es' if total != 1 else ''}"
                           + (f" (first {LIMIT})" if total > LIMIT else ""))
        if found:
            self.results.setCurrentRow(0)
            corner = self.field.mapTo(self.window, self.field.rect().bottomLeft())
            self.results.move(self.window.mapToGlobal(corner))
            self.results.resize(max(self.field.width(), 360), min(12, len(found)) * 22 + 6)
            self.results.show()
        else:
            self.results.hide()

    def _enter(self) -> None:
        if self._debounce.isActive():
            self._debounce.stop()
            self.refresh()
        item = self.results.currentItem()
        if item is not None:
            self.go(item.data(Qt.ItemDataRole.UserRole))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.field and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.ShortcutOverride \
                and event.key() == Qt.Key.Key_Escape:
            event.accept()  # Esc closes the find bar here, not the window's Esc action
            return True
        if watched is self.field and isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            key = event.key()
            if key == Qt.Key.Key_Escape:
                self.close_bar()
                return True
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.results.count():
                row = self.results.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
                self.results.setCurrentRow(max(0, min(self.results.count() - 1, row)))
                return True
        return super().eventFilter(watched, event)

    # --- going there ----------------------------------------------------------------------------------------

    def go(self, match: Match) -> None:
        """Select the object and centre the canvas on it, zoomed in far enough to read it."""
        self.results.hide()
        window = self.window
        scene, view = window.scene, window.view
        if view.zoom() < READABLE_ZOOM:  # first, so what it holds is shown (and can be selected)
            view.zoom_by(READABLE_ZOOM / view.zoom())
        window.workbench.select([match.oid])
        item = scene.nodes.get(match.oid) or next(iter(scene.instances_of(match.oid)), None)
        if item is None:
            return
        rect = item.mapRectToScene(item.size)
        view.setSceneRect(view.sceneRect().united(rect.adjusted(-4000, -4000, 4000, 4000)))
        view.centerOn(rect.center())
        window.workbench.status.emit(f"Found {match.label.split('  ')[0]}")
