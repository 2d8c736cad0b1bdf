"""The canvas scene: draws the workbench's document and turns mouse gestures into editor commands.

The scene never edits items as the truth: it edits the model through the ``Editor`` (one undo command per
gesture) and re-draws from the model when the document announces a change (``sync``). Each gesture (move,
resize, drawing a link) is an ``interactions.Interaction`` that holds its own state while the button is down;
only then do items move ahead of the model, and the release pushes the gesture as one command.

A refused gesture (a drop the design cannot take, a link between things that do not connect) says why where
the mouse is: ``refused`` carries the sentence and the scene point, and the window shows it there.
"""

from __future__ import annotations

import math
from dataclasses import replace

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QGraphicsScene, QGraphicsSceneMouseEvent

from ...layout import content as layout_content
from ...layout.parts import BAR_PAD, PG_GAP
from ...layout.parts import PAD as LAYOUT_PAD
from ...model import Change, Place, Topology
from ...model.objects import MULTI_HOST_SWITCHES, SwitchKind, VmRole
from ..catalog import KINDS, Namer, icon_for, make
from ..commands import Group
from ..colors import DEPLOY_COLORS, DEPLOY_SYMBOLS, canvas_theme, refresh_theme
from ..editing import EditError, Editor, describe
from ..plain import tip as plain_tip
from ..signals import connect_weakly
from ..workbench import Workbench
from .geometry import (
    GRID,
    HOST_HEADER,
    HOST_MIN,
    NOTE_SIZE,
    PAD,
    PHYSICAL_HOST_SIZE,
    ROUTER_MIN_SIZE,
    SWITCH_MIN,
    physical_switch_size,
    snap,
)
from .drawn import Drawn, drawn, layout_edge_id, links, members, part_words, words
from .interactions import DrawLink, Interaction, MoveSelection, ResizeFrame
from .items import LinkItem, HandleItem, NodeItem, NoteItem
from .layout import remembered
from .overlay import PathOverlay
from .overview import Bundles
from .room import command_that_made, make_room, place_pasted

GRIP = 14.0
#: Fields whose change may add, remove, re-parent or re-link items: those redraw everything (``sync``).
STRUCTURE = frozenset({"id", "host", "network", "members", "uplinks", "portgroups", "pnics", "vnics", "ports",
                       "interfaces", "nics", "links", "switch", "places", "notes", "kind", "a", "b", "pnic",
                       "physical_function", "dlrs", "switches", "vms", "hosts"})
#: Room between connection chips placed by the canvas (not by the automatic layout).
CHIP_GAP = 6.0
Z = {"host": 0, "switch": 1, "link": 2, "node": 3, "note": 8, "overlay": 10}
#: Room left between a dropped object and its neighbours.
GAP = 10.0
#: How far from the drop point the scene looks for room (in grid steps each way).
SEARCH_STEPS = 40
#: What dragging from each kind of connection handle does (its tooltip): the gestures, shown where they start.
HANDLE_TIPS = {
    "vnic": "drag onto a portgroup (or a switch without portgroups) to connect it",
    "pnic": "drag onto a vSwitch to make it the switch's uplink, or onto a physical switch port to cable it",
    "port": "drag onto a pNIC, a router interface, a host NIC or another port to cable them",
    "router_interface": "drag onto a physical switch port to cable it",
    "host_nic": "drag onto a physical switch port to cable it",
}


#: What the canvas draws as a box sized to its words (the layout room's size), not as a frame or a bar.
LEAVES = frozenset({"portgroup", "vm", "dlr"})
#: The widest address a vNIC may show: a VM placed by hand keeps room for one on each vNIC.
WIDEST_ADDRESS = "255.255.255.255/32"


def leaf_size(kind: str, obj, lines: list[str]) -> tuple[float, float]:
    """The size of a box placed by hand: the layout room's for these words (so it holds its text as an arranged
    box does), a VM as wide as it will be once its vNICs have addresses, so setting one later does not widen it
    into its neighbour."""
    box = layout_content.leaf("", "", kind, obj.name, lines)
    if kind != "vm":
        return box.w, box.h
    addressed = replace(obj, vnics=[replace(nic, ip=nic.ip or WIDEST_ADDRESS) for nic in obj.vnics])
    return max(box.w, layout_content.leaf("", "", kind, obj.name, layout_content.vm_details(addressed)).w), box.h


def handle_colour(kind: str) -> str:
    """A connection handle's colour: a pNIC in its host's, a vNIC in its VM's, the rest in the physical network's."""
    family = {"pnic": "host", "vnic": "vm"}.get(kind, "physical")
    return canvas_theme().families[family][2]


class DesignScene(QGraphicsScene):
    #: The view should show this rectangle (something was selected from outside the canvas: a panel).
    focusRequested = Signal(QRectF)
    #: The items were brought up to date with the model (a sync or a move finished).
    drawn = Signal()
    #: A gesture was refused: why, and the scene point where the mouse was.
    refused = Signal(str, QPointF)

    def __init__(self, workbench: Workbench, editor: Editor | None = None) -> None:
        super().__init__(workbench)  # lives as long as the design it draws
        self.workbench = workbench
        self.editor = editor or Editor(workbench)
        self.snap_to_grid = True
        self.nodes: dict[str, NodeItem | NoteItem] = {}
        self.handles: dict[str, HandleItem] = {}
        self.links: dict[str, LinkItem] = {}
        self.touching: dict[str, set[str]] = {}  # node id -> keys of links drawn to it or its handles
        self._place_of: dict[int, str] = {}
        self._dirty = True
        self._moved: set[str] = set()
        self._changed: set[str] = set()  # items to redraw for a change of one field (``_keys_changed``)
        self.shown: dict[str, Drawn] = {}
        self.keys_of: dict[str, list[str]] = {}  # model id -> the keys of the items drawn for it
        self.held: dict[str, list[str]] = {}  # frame key -> the keys of what it holds
        self._host_counts: dict[str, str] = {}
        self._syncing = False
        self._selecting = False
        self.interaction: Interaction | None = None
        self.deploy_states: dict = {}
        self.overview = False  # zoomed far out: handles hidden, so Qt does not even visit them
        self._sync_timer = QTimer(self)
        self._sync_timer.setSingleShot(True)
        self._sync_timer.setInterval(0)
        self._sync_timer.timeout.connect(self.flush)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.setBackgroundBrush(QColor(canvas_theme().background))
        connect_weakly(QGuiApplication.styleHints().colorSchemeChanged, self, "follow_colour_scheme")
        self.overlay = PathOverlay(self)
        self.addItem(self.overlay)
        self.bundles = Bundles(self)
        self.addItem(self.bundles)
        self.spans: dict[str, list[str]] = {}
        self.inner: set[str] = set()
        self.parent_of: dict[str, str] = {}
        self.arranged: dict = {}
        self.arranged_edges: dict = {}
        self.gradually: tuple | None = None  # (batch, progress) for the next reset: see sync_gradually
        self._dirty_meanwhile = False
        connect_weakly(workbench.designChanged, self, "_design_changed")
        connect_weakly(workbench.undo_stack.indexChanged, self, "flush")
        connect_weakly(workbench.selectionChanged, self, "_select_ids")
        connect_weakly(workbench.pathHighlighted, self, "show_prediction")
        connect_weakly(workbench.deployStateChanged, self, "show_deploy_states")
        self.selectionChanged.connect(self._selection_to_workbench)
        self.sync()

    def follow_colour_scheme(self, *_: object) -> None:
        """The desktop went dark (or light): the canvas follows, background, items and links."""
        refresh_theme()
        self.setBackgroundBrush(QColor(canvas_theme().background))
        for handle in self.handles.values():
            handle.colour = QColor(handle_colour(handle.kind))
        for item in [*self.nodes.values(), *self.handles.values(), *self.links.values(), self.bundles]:
            item.update()  # also drops a cached picture
        for view in self.views():
            view.resetCachedContent()
            view.viewport().update()  # with what floats over it (the overview map)

    def show_prediction(self, prediction) -> None:
        self.overlay.show_prediction(prediction)

    def show_deploy_states(self, states: dict) -> None:
        """Badges from the deploy dock: what the backend holds for each object (and why, in the tooltip)."""
        self.deploy_states = dict(states)
        for oid, item in self.nodes.items():
            state = states.get(oid)
            key = str(state.state) if state is not None else None
            badge = (DEPLOY_SYMBOLS.get(key, "?"), DEPLOY_COLORS.get(key, "#7f7f7f")) if key else None
            if badge != getattr(item, "badge", None) and isinstance(item, NodeItem):
                item.badge = badge
                item.setToolTip(plain_tip(f"{key}: {state.reason}" if state is not None and state.reason
                                          else (key or "")))
                item.update()

    # --- following the model ---------------------------------------------------------------------------

    @property
    def topology(self) -> Topology:
        return self.workbench.topology

    def _design_changed(self, change: Change) -> None:
        if self._syncing and change.op != "reset":
            self._dirty_meanwhile = True
        oid = self._place_of.get(id(change.obj)) if isinstance(change.obj, Place) else None
        if change.op == "set" and oid in self.nodes and change.field in ("x", "y") and not self._dirty:
            self._moved.add(oid)  # only a position: the quick path moves the item and its links
        elif not self._dirty and (keys := self._keys_changed(change)) is not None:
            self._changed |= keys  # a field of one object: its items only, then its frames and links
        else:
            self._dirty = True
        if change.op == "reset":
            if self.gradually is not None:  # a large design being opened: drawn a slice at a time
                batch, progress = self.gradually
                self.gradually = None
                self.sync_gradually(batch, progress)
            else:
                self.sync()
        elif not self._sync_timer.isActive():
            self._sync_timer.start()

    def flush(self, *_: object) -> None:
        """Bring the drawing up to date now if the model changed (after every undo-stack step)."""
        if self._dirty:
            self.sync()
            return
        if self._changed:
            self._apply_changes()
        if self._moved:
            self._apply_moves()

    def _keys_changed(self, change: Change) -> set[str] | None:
        """The items a change of one field redraws (those of the object or of the one holding it, a vNIC's VM,
        a pNIC's host), or None when it may add, remove or re-link items: then everything is synced."""
        if change.op != "set" or change.field in STRUCTURE or isinstance(change.obj, Place):
            return None
        index = self.workbench.document.index
        oid = getattr(change.obj, "id", None)
        for _ in range(4):  # a rule's port is three objects deep at most
            if not isinstance(oid, str):
                return None
            keys = self.keys_of.get(oid)
            if keys:
                return set(keys)
            owner = index.parent(oid)
            oid = getattr(owner, "id", None)
        return None

    def _apply_changes(self) -> None:
        """Redraw the changed items, refit the frames around them and re-route the links that touch them."""
        changed, self._changed = self._changed, set()
        topo = self.topology
        places = topo.layout.places
        wanted = {key: self.shown[key] for key in changed if key in self.shown and key in self.nodes}
        switch_of = {pg.id: sw for sw in topo.switches for pg in sw.portgroups} if any(
            d.kind == "portgroup" for d in wanted.values()) else {}
        frames: list[str] = []
        for key, d in wanted.items():
            item = self.nodes[key]
            self._update_node(item, d, switch_of, places.get(key), self._host_counts.get(key, ""))
            if d.kind == "note":
                item.setPos(d.obj.x, d.obj.y)
            elif item.handles and not item.frame:
                self._place_handles(item)
            frames += [key] if item.frame else []
            frames += [p for p in self.ancestors_drawn(key)]
        held = self.held
        for oid in sorted(set(frames), key=lambda k: -len(self.ancestors_drawn(k))):  # innermost first
            item = self.nodes[oid]
            if item.kind == "switch":
                self._fit(oid, held.get(oid, []), SWITCH_MIN, places)
            elif item.kind == "host":
                chips = self.chips_of(item)
                room = max((c.h for c in chips), default=0.0) + 2 * CHIP_GAP if chips else 22.0
                self._fit(oid, held.get(oid, []), HOST_MIN, places, extra_bottom=room)
                self._place_handles(item)
        self.reroute(set(wanted) | set(frames))
        self.drawn.emit()

    def ancestors_drawn(self, key: str) -> list[str]:
        """The frames around a drawn item, innermost first."""
        out = []
        while key in self.parent_of:
            key = self.parent_of[key]
            out.append(key)
        return out

    def _apply_moves(self) -> None:
        """Moves only (a drag, its undo, an align): place the items, refit frames, re-route their links."""
        moved, self._moved = self._moved, set()
        places = self.topology.layout.places
        for oid in moved:
            place = places[oid]
            self.nodes[oid].setPos(place.x, place.y)
        sizes = {oid: QRectF(item.size) for oid, item in self.nodes.items() if item.frame}
        self._fit_frames()
        resized = {oid for oid, size in sizes.items() if self.nodes[oid].size != size}  # their handles moved
        self.reroute(moved | resized)
        self.overlay.refresh()
        self.drawn.emit()

    def sync(self) -> None:
        """Make the items match the model: add, update, remove, size frames, route links."""
        if self._syncing:
            return
        self._syncing = True
        try:
            self._sync()
        finally:
            self._syncing = False
            self._dirty = False
            self._moved, self._changed = set(), set()

    def _sync(self) -> None:
        for _ in self._sync_steps():
            pass

    def sync_gradually(self, batch: int, progress=None) -> None:
        """Like ``sync``, a slice of ``batch`` items per turn of the event loop, so the window paints and
        answers while a large design is drawn; ``progress(done, total)`` after each slice, ``drawn`` at the end.
        An edit meanwhile is drawn once this finishes."""
        if self._syncing:
            return
        self._syncing = True
        steps = self._sync_steps(batch)

        def step() -> None:
            try:
                done, total = next(steps)
            except StopIteration:
                self._syncing = False
                self._moved = set()
                again, self._dirty = self._dirty_meanwhile, False
                self._dirty_meanwhile = False
                if again:
                    self.sync()
                return
            except BaseException:
                self._syncing = False
                raise
            if progress is not None:
                progress(done, total)
            QTimer.singleShot(0, step)

        self._dirty_meanwhile = False
        QTimer.singleShot(0, step)

    def _sync_steps(self, batch: int = 0):
        """``_sync`` in steps: yields (done, total) after every ``batch`` items made (never when 0), so a large
        design can be drawn a slice at a time while the window keeps answering."""
        topo = self.topology
        places = topo.layout.places
        self._place_of = {id(p): oid for oid, p in places.items()}
        self.spans = members(topo)
        wanted = drawn(topo)
        for oid in [o for o in self.nodes if o not in wanted or self.nodes[o].kind != wanted[o].kind]:
            self._remove_node(oid)
        switch_of = {pg.id: sw for sw in topo.switches for pg in sw.portgroups}
        self.inner = {key for key, d in wanted.items() if d.parent}
        self.parent_of = {key: d.parent for key, d in wanted.items() if d.parent}
        self.shown, self.keys_of, self.held = wanted, {}, {}
        for key, d in wanted.items():
            self.keys_of.setdefault(d.ref, []).append(key)
            if d.parent:
                self.held.setdefault(d.parent, []).append(key)
        counts = self._host_counts = self._counts(wanted)
        arranged = remembered(topo)
        self.arranged = arranged.by_id() if arranged is not None else {}
        self.arranged_edges = {e.id: e for e in arranged.edges} if arranged is not None else {}
        total, made = len(wanted), 0
        bulk = total - len(self.nodes) > 2000
        if bulk:  # thousands of new items: index them once at the end, not one by one
            self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        for oid, d in wanted.items():
            item = self.nodes.get(oid)
            new = item is None
            if new:
                kind = d.kind
                item = NoteItem(oid) if kind == "note" else NodeItem(oid, kind, frame=kind in ("host", "switch"),
                                                                     ref=d.ref)
                item.setZValue(Z["note"] if kind == "note" else Z.get(kind, Z["node"]))
                item.setVisible(not (self.overview and oid in self.inner))
                self.nodes[oid] = item
            self._update_node(item, d, switch_of, places.get(oid), counts.get(oid, ""))
            if d.kind == "note":
                item.setPos(d.obj.x, d.obj.y)
            else:
                place = places.get(oid)
                pos = QPointF(place.x, place.y) if place else self._fallback(d)
                if item.pos() != pos:
                    item.setPos(pos)
                if item.handles and not item.frame:
                    self._place_handles(item)
            if new:  # added once drawn and sized: the scene indexes it once
                self.addItem(item)
                made += 1
                if batch and made % batch == 0:
                    yield made, total
        self._fit_frames()
        yield from self._sync_links(batch)
        if bulk:
            self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.overlay.refresh()
        if self.overview:
            self.bundles.refresh()
        if self.deploy_states:
            self.show_deploy_states(self.deploy_states)
        self._select_ids(self.workbench.selection)
        self.drawn.emit()

    def _counts(self, wanted: dict[str, Drawn]) -> dict[str, str]:
        """What each host holds, for its label when zoomed far out."""
        vms: dict[str, int] = {}
        switches: dict[str, int] = {}
        for d in wanted.values():
            if d.kind == "vm" and d.parent:
                vms[d.parent] = vms.get(d.parent, 0) + 1
            elif d.kind == "switch" and d.parent:
                switches[d.parent] = switches.get(d.parent, 0) + 1
        out = {}
        for host in self.topology.hosts:
            n, m, p = vms.get(host.id, 0), switches.get(host.id, 0), len(host.pnics)
            out[host.id] = (f"{n} VM{'s' if n != 1 else ''} \u00b7 {m} switch{'es' if m != 1 else ''} \u00b7 "
                            f"{p} pNIC{'s' if p != 1 else ''}")
        return out

    def _remove_node(self, oid: str) -> None:
        item = self.nodes.pop(oid)
        for hid in item.handles:
            self.handles.pop(hid, None)
        self.removeItem(item)

    def _fallback(self, d: Drawn) -> QPointF:
        """Where an object without a place is drawn: inside its container, else below everything."""
        parent = self.nodes.get(d.parent) if d.parent else None
        if parent is not None:
            return parent.pos() + QPointF(PAD, parent.header_height() + PAD)
        bottom = max((i.sceneBoundingRect().bottom() for i in self.nodes.values() if i.oid != d.key), default=0)
        return QPointF(0, bottom + 60)

    def _update_node(self, item, d: Drawn, switch_of: dict, place: Place | None, counts: str = "") -> None:
        kind, obj = d.kind, d.obj
        if kind == "note":
            sig = (obj.text, obj.w, obj.h)
            if sig != item.signature:
                item.signature = sig
                item.text = obj.text
                item.set_size(obj.w or NOTE_SIZE[0], obj.h or NOTE_SIZE[1])
                item.update()
            return
        lines = words(d, self.topology, switch_of, self.spans)
        handles, handle_kind, edge = [], "", "bottom"
        size = None
        family = {"host": "host", "switch": "switch", "portgroup": "portgroup", "dlr": "nsx"}.get(kind, "physical")
        if kind == "host":
            handles, handle_kind = [(p.id, p.name, part_words("pnic", p)) for p in obj.pnics], "pnic"
        elif kind == "switch":
            family = "nsx" if obj.kind is SwitchKind.NSX_SEGMENT else "switch"
        elif kind == "vm":
            family = "vm" if obj.role is VmRole.VM else f"vm-{obj.role.value}"
            handles, handle_kind = [(n.id, n.name, []) for n in obj.vnics], "vnic"
        elif kind == "physical_switch":
            handles, handle_kind, edge = [(p.id, p.name, part_words("port", p)) for p in obj.ports], "port", "top"
            size = physical_switch_size(len(obj.ports))
        elif kind == "physical_router":
            handles, handle_kind, edge = [(i.id, i.name, part_words("router_interface", i)) for i in obj.interfaces], \
                "router_interface", "top"
            size = (max(ROUTER_MIN_SIZE[0], 40 + len(obj.interfaces) * 40), ROUTER_MIN_SIZE[1])
        elif kind == "physical_host":
            handles, handle_kind, edge = [(n.id, n.name, part_words("host_nic", n)) for n in obj.nics], "host_nic", "top"
            size = PHYSICAL_HOST_SIZE
        if (size or kind in LEAVES) and place is not None and place.w and place.h:  # a size the design asks for
            size = (max(place.w, 40.0), max(place.h, 24.0))
        elif kind in LEAVES:
            size = leaf_size(kind, obj, lines)
        title_w = header = 0.0
        if item.frame or kind in ("physical_switch", "physical_router", "physical_host"):
            block = layout_content.frame(d.key, d.ref, kind, obj.name, lines)
            title_w, header = (0.0 if kind == "host" else block.label_w), block.header
        sig = (obj.name, tuple(lines), tuple((h, n, tuple(w)) for h, n, w in handles), size, family, counts)
        if sig == item.signature:
            return
        item.signature = sig
        item.set_text(obj.name, lines)
        item.family, item.counts = family, counts
        item.label_w, item.header = title_w, max(header, HOST_HEADER)
        item.icon = icon_for(kind, obj)
        if size:
            item.set_size(*size)
        if [h for h, _, _ in handles] != list(item.handles) or any(
                item.handles[h].full_label != label for h, label, _ in handles):
            for hid, handle in item.handles.items():
                self.handles.pop(hid, None)
                handle.setParentItem(None)
                self.removeItem(handle)
            item.handles = {}
            for hid, label, _ in handles:
                handle = HandleItem(hid, handle_kind, label, item, handle_colour(handle_kind), HANDLE_TIPS[handle_kind])
                handle.label_below = edge == "bottom"
                handle.setVisible(not self.overview)
                item.handles[hid] = handle
                self.handles[hid] = handle
        for hid, _, part in handles:
            handle = item.handles[hid]
            handle.set_chip(handle.chip, part)
        item.handle_edge = edge
        item.update()

    def set_overview(self, overview: bool) -> None:
        """Called by the view when the zoom crosses the level-of-detail threshold: far out, hosts are labelled
        boxes (what they hold hidden, so Qt does not even visit it) and links between boxes are bundled."""
        if overview != self.overview:
            self.overview = overview
            for handle in self.handles.values():
                handle.setVisible(not overview)
            for key in self.inner:
                item = self.nodes.get(key)
                if item is not None:
                    item.setVisible(not overview)
            for link in self.links.values():
                link.setVisible(not overview)
            self.bundles.show(overview)
            if not overview:  # a hidden item cannot be selected: select what became visible
                self._select_ids(self.workbench.selection)

    def _place_handles(self, item: NodeItem) -> None:
        """Handles where the automatic layout put their boxes while the item is where it put it (drawn as chips
        with their details), else evenly along the item's edge."""
        rect = item.mapRectToScene(item.size)
        box = self.arranged.get(item.oid)
        boxes = [self.arranged.get(hid) for hid in item.handles]
        if box is not None and all(boxes) and _same(rect, box):
            for handle, b in zip(item.handles.values(), boxes):
                handle.setPos(b.x + b.w / 2 - box.x, b.y + b.h / 2 - box.y)
                handle.set_chip(QRectF(-b.w / 2, -b.h / 2, b.w, b.h), handle.lines)
            return
        n = len(item.handles)
        local = item.size
        bottom = getattr(item, "handle_edge", "bottom") == "bottom"
        y = local.bottom() if bottom else local.top()
        chips = self.chips_of(item)
        left = local.left() + (CHIP_GAP if bottom else max(item.label_w, 40.0))
        if chips and sum(c.w for c in chips) + CHIP_GAP * n <= local.right() - left:
            # chips in a row inside the box: along a frame's bottom, right of a box's title (as the layout draws)
            x = left
            for handle, chip in zip(item.handles.values(), chips):
                centre_y = local.bottom() - CHIP_GAP - chip.h / 2 if bottom else local.center().y()
                handle.setPos(x + chip.w / 2, centre_y)
                handle.set_chip(QRectF(-chip.w / 2, -chip.h / 2, chip.w, chip.h), handle.lines)
                x += chip.w + CHIP_GAP
            return
        for i, handle in enumerate(item.handles.values()):
            handle.set_chip(None, handle.lines)  # no room for chips: a marker, its details in the tooltip
            handle.setPos(local.left() + local.width() * (i + 1) / (n + 1), y)

    @staticmethod
    def chips_of(item: NodeItem) -> list:
        """The layout room's boxes for an item's connection chips (its pNICs, ports, interfaces; none for a
        VM's vNICs, which are dots on its edge)."""
        return [layout_content.leaf("", "", handle.kind, handle.full_label, handle.lines)
                for handle in item.handles.values() if handle.kind != "vnic"]

    def children_of(self, oid: str) -> list[str]:
        """What a frame holds: a host its switches (and proxies), VMs and DLR instances, a switch its portgroups."""
        return [key for key in self.held.get(oid, []) if key in self.nodes]

    def descendants(self, oid: str) -> list[str]:
        out, todo = [], self.children_of(oid)
        while todo:
            child = todo.pop()
            out.append(child)
            todo += self.children_of(child)
        return out

    def _fit_frames(self) -> None:
        """Size each frame to hold its children (switches first, then hosts), then put their handles on."""
        places = self.topology.layout.places
        held = self.held
        for oid, item in self.nodes.items():
            if item.kind == "switch":
                self._fit(oid, held.get(oid, []), SWITCH_MIN, places)
        for host in self.topology.hosts:
            chips = self.chips_of(self.nodes[host.id])  # a row of pNIC chips along the bottom, under what it holds
            room = max((c.h for c in chips), default=0.0) + 2 * CHIP_GAP if chips else 22.0
            self._fit(host.id, held.get(host.id, []), HOST_MIN, places, extra_bottom=room)
            self._place_handles(self.nodes[host.id])

    def _fit(self, oid: str, children: list[str], minimum: tuple[float, float], places, extra_bottom: float = 0) -> None:
        """A frame's size: the one its place asks for, grown to hold its children. A frame the automatic layout
        sized holds them exactly (its pNICs inside); one drawn by hand keeps a margin and its kind's minimum."""
        item = self.nodes[oid]
        place = places.get(oid)
        arranged = oid in self.arranged
        pad = BAR_PAD if arranged and item.kind == "switch" else LAYOUT_PAD if arranged else PAD
        extra = 0.0 if arranged else extra_bottom
        w = max(0.0 if arranged else minimum[0], place.w or 0 if place else 0)
        h = max(0.0 if arranged else minimum[1], place.h or 0 if place else 0)
        origin = item.pos()
        for cid in children:
            child = self.nodes.get(cid)
            if child is not None:
                r = child.mapRectToScene(child.size) if arranged else child.sceneBoundingRect()
                w = max(w, r.right() - origin.x() + pad)
                h = max(h, r.bottom() - origin.y() + pad + extra)
        item.set_size(w, h)

    # --- links -------------------------------------------------------------------------------------------

    def host_rows(self) -> list[list[str]]:
        """Hosts standing side by side (their frames overlap vertically), each row left to right."""
        rects = sorted(((self.nodes[h.id].mapRectToScene(self.nodes[h.id].size), h.id) for h in self.topology.hosts
                        if h.id in self.nodes), key=lambda r: (r[0].top(), r[0].left()))
        rows: list[list[tuple[QRectF, str]]] = []
        for rect, hid in rects:
            for row in rows:
                if rect.top() < row[0][0].bottom() and row[0][0].top() < rect.bottom():
                    row.append((rect, hid))
                    break
            else:
                rows.append([(rect, hid)])
        return [[hid for _, hid in sorted(row, key=lambda r: r[0].left())] for row in rows]

    def _wanted_links(self) -> dict[str, tuple[str, str, str]]:
        return links(self.topology, lambda oid: self.anchor_item(oid) is not None, self.spans, self.host_rows())

    def _sync_links(self, batch: int = 0):
        wanted = self._wanted_links()
        for key in [k for k in self.links if k not in wanted or
                    (self.links[k].style, self.links[k].a, self.links[k].b) != wanted[k]]:
            self.removeItem(self.links.pop(key))
        self.touching = {}
        made = 0
        still = {key for key, item in self.nodes.items() if key in self.arranged
                 and _same(item.mapRectToScene(item.size), self.arranged[key])}
        for key, (style, a, b) in wanted.items():
            item = self.links.get(key)
            new = item is None
            if new:
                item = LinkItem(key, style, a, b)
                item.setVisible(not self.overview)
                self.links[key] = item
            for end in (a, b):
                self.touching.setdefault(self.node_of(end), set()).add(key)
            self._route(item, still)
            if new:
                self.addItem(item)
                made += 1
                if batch and made % batch == 0:
                    yield made, len(wanted)
        for handle in self.handles.values():
            handle.connected = False
        for item in self.links.values():
            for end in (item.a, item.b):
                if end in self.handles:
                    self.handles[end].connected = True

    def node_of(self, oid: str) -> str:
        handle = self.handles.get(oid)
        return handle.parentItem().oid if handle is not None else oid

    def anchor_item(self, oid: str | None):
        if oid is None:
            return None
        return self.handles.get(oid) or self.nodes.get(oid)

    def anchor(self, oid: str, toward: QPointF | None = None) -> QPointF | None:
        """Where a line to ``oid`` ends: a handle's centre, or the middle of a node's top or bottom edge."""
        item = self.anchor_item(oid)
        if item is None:
            return None
        if isinstance(item, HandleItem):
            return item.scenePos()
        rect = item.mapRectToScene(item.size)
        if toward is None:
            return rect.center()
        if item.frame and rect.contains(toward):
            return QPointF(rect.center().x(), rect.bottom())
        return QPointF(rect.center().x(), rect.top() if toward.y() < rect.center().y() else rect.bottom())

    def _route(self, link: LinkItem, still: set[str] | None = None) -> None:
        """The automatic layout's route while both ends are where it put them (``still``: the items known to
        be), else the plain route."""
        edge = self.arranged_edges.get(layout_edge_id(link.key, link.a, link.b)) if self.arranged_edges else None
        if edge is not None and all(self.node_of(end) in still if still is not None
                                    else self._as_arranged(self.node_of(end)) for end in (link.a, link.b)):
            link.set_points(edge.points)
            return
        pa, pb = self._centre(link.a), self._centre(link.b)
        a = self.anchor(link.a, pb)
        b = self.anchor(link.b, pa)
        if a is not None and b is not None:
            link.set_ends(a, b)

    def _as_arranged(self, oid: str) -> bool:
        item, box = self.nodes.get(oid), self.arranged.get(oid)
        return item is not None and box is not None and _same(item.mapRectToScene(item.size), box)

    def _centre(self, oid: str) -> QPointF:
        item = self.anchor_item(oid)
        return item.scenePos() if isinstance(item, HandleItem) else item.mapRectToScene(item.size).center()

    def reroute(self, node_ids) -> None:
        keys = set()
        for oid in node_ids:
            keys |= self.touching.get(oid, set())
        for key in keys:
            self._route(self.links[key])

    # --- selection ---------------------------------------------------------------------------------------

    def selected_ids(self) -> list[str]:
        """The selected objects; a handle inside a selected node goes with its node (rubber band)."""
        selected = self.selectedItems()
        ids = [getattr(item, "ref", item.oid) for item in selected if hasattr(item, "oid") and not (
            isinstance(item, HandleItem) and item.parentItem().isSelected())]
        return list(dict.fromkeys(ids))

    def _selection_to_workbench(self) -> None:
        """The selection in the order it was made (Qt's own order is arbitrary): click A, Ctrl+click B is A, B,
        so a path or a measurement picked that way goes from A to B."""
        if not self._selecting:
            self._selecting = True
            try:
                now = self.selected_ids()
                kept = [oid for oid in self.workbench.selection if oid in now]
                self.workbench.select(kept + [oid for oid in now if oid not in kept])
            finally:
                self._selecting = False

    def _select_ids(self, ids: list[str]) -> None:
        if self._selecting:
            return
        self._selecting = True
        try:
            wanted = set(ids)
            for item in self.selectedItems():
                if getattr(item, "ref", getattr(item, "oid", None)) not in wanted:
                    item.setSelected(False)
            for oid in ids:
                for item in [self.nodes.get(oid) or self.handles.get(oid) or self.links.get(oid),
                             *self.instances_of(oid)]:
                    if item is not None and not item.isSelected():
                        item.setSelected(True)
        finally:
            self._selecting = False
        shown = [i for i in ids if i in self.nodes or i in self.handles]
        shown += [item.oid for i in ids for item in self.instances_of(i)]
        if shown and not self._syncing:
            self.focusRequested.emit(self.node_rect(self.node_of(shown[0])))

    def instances_of(self, oid: str) -> list[NodeItem]:
        """The items drawn for an object that has one per member host (a vDS proxy, its portgroups, a DLR)."""
        if oid in self.nodes:
            return []
        return [item for item in self.nodes.values() if getattr(item, "ref", None) == oid and item.oid != oid]

    # --- containment -------------------------------------------------------------------------------------

    def container_at(self, what: str, pos: QPointF, exclude: set[str] = frozenset()) -> str | None:
        """The innermost frame at ``pos`` that can hold ``what`` ("host" or "switch" container kinds)."""
        for item in self.items(pos):
            if not isinstance(item, NodeItem) or item.oid in exclude:
                continue
            if what == "host" and item.kind == "host":
                return item.oid
            if what == "switch" and item.kind == "switch":
                return item.ref  # a proxy stands for its distributed switch
        return None

    def container_kind(self, oid: str) -> str:
        """What a dragged object may be dropped into."""
        index = self.workbench.document.index
        kind, obj = index.kind(oid), index.get(oid)
        if kind == "portgroup":
            return "switch"
        if kind == "vm" or (kind == "switch" and obj.kind not in MULTI_HOST_SWITCHES):
            return "host"
        return ""

    # --- gestures ----------------------------------------------------------------------------------------

    def _item_at(self, pos: QPointF):
        """The item a press at ``pos`` grabs: a connection handle wins over whatever is drawn above it."""
        items = self.items(pos)
        for item in items:
            if isinstance(item, HandleItem) and item.isVisible():
                return item
        for item in items:
            if isinstance(item, (HandleItem, NodeItem, NoteItem, LinkItem)) and item.isVisible():
                return item
        return None

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        if self.interaction is not None:  # its release never came (a lost mouse grab): drop it
            self.interaction.cancel()
            self.interaction = None
        pos = event.scenePos()
        item = self._item_at(pos)
        ctrl = bool(event.modifiers() & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier))
        if isinstance(item, HandleItem) and not ctrl:
            self.interaction = DrawLink(self, pos, item)
        elif isinstance(item, NodeItem) and item.frame and not ctrl and self.in_grip(item, pos):
            self.interaction = ResizeFrame(self, pos, item)
        elif isinstance(item, (NodeItem, NoteItem, LinkItem)):
            if ctrl:
                item.setSelected(not item.isSelected())
            elif not item.isSelected():
                self.clearSelection()
                item.setSelected(True)
            if not isinstance(item, LinkItem) and item.isSelected():
                self.interaction = MoveSelection(self, pos, item, ctrl)
        else:
            super().mousePressEvent(event)
            return
        event.accept()

    @staticmethod
    def in_grip(item: NodeItem, pos: QPointF) -> bool:
        """Whether ``pos`` is on a frame's resize grip (its bottom-right corner)."""
        corner = item.mapToScene(item.size.bottomRight())
        return 0 <= corner.x() - pos.x() <= GRIP and 0 <= corner.y() - pos.y() <= GRIP

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:
            self.interaction.move(event.scenePos())
            event.accept()
            return
        if event.buttons() == Qt.MouseButton.NoButton:
            self._hover_cursor(event)
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self.interaction is not None:
            interaction, self.interaction = self.interaction, None
            interaction.release(event.scenePos())
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _hover_cursor(self, event: QGraphicsSceneMouseEvent) -> None:
        """A cross over a connection handle (drag to connect), a diagonal arrow over a frame's resize grip."""
        view = event.widget().parentWidget() if event.widget() is not None else None
        if view is None:
            return
        item = self._item_at(event.scenePos())
        if isinstance(item, HandleItem):
            view.viewport().setCursor(Qt.CursorShape.CrossCursor)
        elif isinstance(item, NodeItem) and item.frame and self.in_grip(item, event.scenePos()):
            view.viewport().setCursor(Qt.CursorShape.SizeFDiagCursor)
        elif not getattr(view, "panning", False):
            view.viewport().unsetCursor()

    def refuse(self, message: str, pos: QPointF) -> None:
        """A gesture that cannot be done: say why, in the status bar and where the mouse is."""
        self.workbench.status.emit(message)
        self.refused.emit(message, pos)

    def target_for(self, source: HandleItem, target) -> str:
        """Dropping a cable end on a physical switch's body plugs it into the nearest free port."""
        if isinstance(target, NodeItem) and target.kind == "physical_switch" and source.kind != "vnic":
            free = [h for h in target.handles.values() if not h.connected]
            if free:
                return min(free, key=lambda h: (h.scenePos() - source.scenePos()).manhattanLength()).oid
        return target.oid

    def nudge(self, dx: float, dy: float) -> bool:
        """Move the selection (and what it holds) by (dx, dy): the arrow keys. A run of presses is one undo step."""
        grabbed = [oid for oid in self.selected_ids() if oid in self.nodes]
        moving: dict[str, tuple[float, float]] = {}
        for oid in grabbed:
            for moved in [oid, *self.descendants(oid)]:
                item = self.nodes[moved]
                moving.setdefault(moved, (item.pos().x() + dx, item.pos().y() + dy))
        return bool(moving) and self.editor.nudge(moving, grabbed)

    # --- dropping palette entries --------------------------------------------------------------------------

    def drop(self, key: str, pos: QPointF) -> str | None:
        """Add a palette entry at scene point ``pos``, where there is room (the drop's code path, also used by
        double-click in the palette); a refused drop says why at ``pos``."""
        kind = KINDS.get(key)
        if kind is None:
            return None
        container = self.container_at(kind.container, pos) if kind.container else None
        if key == "portgroup" and container:
            top_left = self.next_slot(container)
        else:
            top_left = self.room_for(key, pos, container)
        try:
            oid = self.editor.add(key, top_left.x(), top_left.y(), container)
        except EditError as exc:
            self.refuse(str(exc), pos)
            return None
        self.make_room_for([oid])
        self.workbench.select([oid])
        return oid

    def make_room_for(self, oids: list[str], command: Group | None = None) -> None:
        """After a drop, resize or paste of ``oids``: push what they (or their grown frames) now overlap aside,
        as part of the gesture's undo step (``command``, else the one that inserted them)."""
        command = command or command_that_made(self.workbench.undo_stack, oids)
        if command is not None:
            make_room(self, command, oids)

    def place_pasted(self, oids: list[str]) -> None:
        """Pasted or duplicated ``oids``: moved clear of everything, and room made where they went into a frame."""
        command = command_that_made(self.workbench.undo_stack, oids)
        if command is not None:
            place_pasted(self, command, oids, GRID if self.snap_to_grid else 1.0)

    def room_for(self, key: str, pos: QPointF, container: str | None) -> QPointF:
        """Where a dropped ``key`` goes: centred on ``pos`` if there is room, else at the nearest free spot;
        inside a container, below its header (the container grows to hold it)."""
        w, h = self.drop_size(key, container)
        x, y = pos.x() - w / 2, pos.y() - h / 2
        step = GRID if self.snap_to_grid else 1.0
        left = top = -math.inf
        if container is not None and container in self.nodes:
            frame = self.node_rect(container)
            left, top = frame.left() + PAD, frame.top() + self.nodes[container].header_height() + PAD
            left, top = math.ceil(left / step) * step, math.ceil(top / step) * step
        x, y = max(snap(x, step), left), max(snap(y, step), top)
        ignore = {container, *self.ancestors(container)} if container else set()
        candidates = sorted(((dx, dy) for dx in range(-SEARCH_STEPS, SEARCH_STEPS + 1)
                             for dy in range(-SEARCH_STEPS, SEARCH_STEPS + 1)),
                            key=lambda d: (abs(d[0]) + abs(d[1]), abs(d[1]), d))
        for dx, dy in candidates:
            spot = QRectF(x + dx * step, y + dy * step, w, h)
            if spot.left() < left or spot.top() < top:
                continue
            if not self._occupied(spot.adjusted(-GAP, -GAP, GAP, GAP), ignore):
                return spot.topLeft()
        return QPointF(x, y)

    def _occupied(self, rect: QRectF, ignore: set[str]) -> bool:
        return any(isinstance(item, (NodeItem, NoteItem)) and item.oid not in ignore
                   for item in self.items(rect, Qt.ItemSelectionMode.IntersectsItemBoundingRect))

    def ancestors(self, oid: str) -> list[str]:
        """The frames around ``oid``: a portgroup's switch and that switch's host, a VM's host."""
        index = self.workbench.document.index
        out: list[str] = []
        while True:
            kind, obj = index.kind(oid), index.get(oid)
            parent = index.parent(oid).id if kind == "portgroup" else getattr(obj, "host", None) if kind in (
                "switch", "vm") else None
            if not parent:
                return out
            out.append(parent)
            oid = parent

    def label(self, oid: str) -> str:
        """How an object on the canvas is named in messages and the history."""
        return describe(self.workbench.document.index, oid) if oid in self.workbench.document.index else "note"

    def visible_rect(self) -> QRectF:
        """The part of the scene the first view shows (everything when there is no view)."""
        views = self.views()
        if not views:
            return self.itemsBoundingRect()
        view = views[0]
        return view.mapToScene(view.viewport().rect()).boundingRect()

    # --- what other parts ask ----------------------------------------------------------------------------

    def node_rect(self, oid: str) -> QRectF | None:
        item = self.nodes.get(oid)
        return item.mapRectToScene(item.size) if item is not None else None

    def design_rect(self) -> QRectF:
        """The bounding box of every object drawn (empty for an empty design)."""
        self.flush()
        rects = [item.sceneBoundingRect() for item in self.nodes.values()]
        if not rects:
            return QRectF()
        left, top = min(r.left() for r in rects), min(r.top() for r in rects)
        right, bottom = max(r.right() for r in rects), max(r.bottom() for r in rects)
        return QRectF(left, top, right - left, bottom - top)

    def next_slot(self, switch_id: str) -> QPointF:
        """Where the next portgroup dropped into a switch goes: right of the last one, in the row beside the
        switch's title (as the layout room fills a bar)."""
        item = self.nodes.get(switch_id) or next(iter(self.instances_of(switch_id)), None)
        rect = item.mapRectToScene(item.size)
        right = rect.left() + max(PAD, item.label_w)
        for pg in self.workbench.document.index.get(switch_id).portgroups:
            pg_rect = self.node_rect(pg.id)
            if pg_rect is not None:
                right = max(right, pg_rect.right() + PG_GAP)
        return QPointF(right, rect.top() + BAR_PAD)

    def drop_size(self, key: str, container: str | None = None) -> tuple[float, float]:
        """The size a palette entry dropped into ``container`` will have, so a drop finds room for all of it: a
        VM, portgroup or DLR is sized by the layout room from the words the new object will show."""
        if key.startswith("host-"):
            return HOST_MIN
        if key.startswith("switch-"):
            return SWITCH_MIN
        if key in ("portgroup", "nsx-dlr") or key.startswith("vm"):
            index = self.workbench.document.index
            host_kind = index.get(container).kind if index.kind(container) == "host" else None
            _, obj = make(key, Namer(self.topology), container=container, host_kind=host_kind)
            kind = "portgroup" if key == "portgroup" else "dlr" if key == "nsx-dlr" else "vm"
            return leaf_size(kind, obj, words(Drawn(obj.id, kind, obj, None, obj.id), self.topology, {}, {}))
        return {"physical-switch": physical_switch_size(8), "physical-router": ROUTER_MIN_SIZE,
                "physical-host": PHYSICAL_HOST_SIZE, "note": NOTE_SIZE}[key]


def _same(rect: QRectF, box) -> bool:
    """Whether an item's scene rect is the layout's box (to half a pixel)."""
    return (abs(rect.x() - box.x) < 0.5 and abs(rect.y() - box.y) < 0.5 and abs(rect.width() - box.w) < 0.5
            and abs(rect.height() - box.h) < 0.5)
