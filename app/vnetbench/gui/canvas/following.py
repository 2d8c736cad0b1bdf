"""Following the model: the canvas items made, updated and removed as the design changes.

A change of one field redraws the items of that object only (and the frames and links around them), as
orange-canvas-core's ``CanvasScene`` follows its scheme change by change; a change that adds, removes or re-links
objects syncs everything (``sync``), a large design a slice at a time (``sync_gradually``); a move only moves.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import cast

from PySide6.QtCore import QObject, QPointF, QRectF, QTimer
from PySide6.QtWidgets import QGraphicsScene

from ...layout import content as layout_content
from ...model import Change, Place
from ...model.objects import SwitchKind, VmRole
from ..catalog import icon_for
from ..colors import canvas_theme
from .geometry import (
    HOST_HEADER,
    HOST_MIN,
    NOTE_SIZE,
    PAD,
    PHYSICAL_HOST_SIZE,
    ROUTER_MIN_SIZE,
    SWITCH_MIN,
    physical_switch_size,
)
from .drawn import Drawn, iter_drawn, members, part_words, words
from .items import HandleItem, NodeItem, NoteItem
from .layout import remembered
from .framing import CHIP_GAP
from .slicing import Slices

#: Fields whose change may add, remove, re-parent or re-link items: those redraw everything (``sync``).
STRUCTURE = frozenset({"id", "host", "network", "members", "uplinks", "portgroups", "pnics", "vnics", "ports",
                       "interfaces", "nics", "links", "switch", "places", "notes", "kind", "a", "b", "pnic",
                       "physical_function", "dlrs", "switches", "vms", "hosts"})
Z = {"host": 0, "switch": 1, "link": 2, "node": 3, "note": 8, "overlay": 10}
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
#: Room around the design's extent in the scene's rectangle (see ``_index_as_added``).
INDEX_MARGIN = 4000.0
#: A query there finds nothing, and makes Qt index the items added since the last query: its own index timer
#: waits while the slices follow one another, and would then index them all in one go.
FAR_AWAY = QRectF(-1e9, -1e9, 1, 1)
#: Canvas items per drawn object on a large design (its box, its connection handles, its links), to size the index.
ITEMS_PER_OBJECT = 2
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


class Following:
    """The following part of ``DesignScene`` (see ``scene``)."""

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
                budget, progress = self.gradually
                self.gradually = None
                self.sync_gradually(budget, progress)
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
        keys = self.drawn_keys(getattr(change.obj, "id", None))
        return set(keys) if keys else None

    def drawn_keys(self, oid: str | None) -> list[str]:
        """The keys of the items that show object ``oid``: its own, or those of the object holding it (a vNIC's
        VM, a pNIC's host, a port's switch); none when nothing drawn holds it."""
        index = self.workbench.document.index
        for _ in range(4):  # a rule's port is three objects deep at most
            if not isinstance(oid, str):
                return []
            keys = self.keys_of.get(oid)
            if keys:
                return keys
            oid = getattr(index.parent(oid), "id", None)
        return []

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

    def sync_gradually(self, budget: float, progress=None) -> None:
        """Like ``sync``, in slices of ``budget`` seconds, one per turn of the event loop, so the window paints
        and answers while a large design is drawn (or replaced); ``progress(done, total)`` after each slice,
        ``drawn`` at the end. An edit meanwhile is drawn once this finishes."""
        if self._syncing:
            return
        self._syncing = True
        steps = self._sync_steps(Slices(budget))
        # The next slice comes from a timer, not a posted call: posted calls run back to back with the scene's own
        # (its dirty items, tens of milliseconds after a slice), so two slices and the scene's work between them
        # ran as one 100 ms block; as a timer, each slice waits its turn with the window's other timers and input.
        turn = QTimer(cast(QObject, self))   # (a DesignScene)
        turn.setSingleShot(True)
        turn.setInterval(0)

        def step() -> None:
            try:
                done, total = next(steps)
            except StopIteration:
                turn.deleteLater()
                self._syncing = False
                self._moved = set()
                again, self._dirty = self._dirty_meanwhile, False
                self._dirty_meanwhile = False
                if again:
                    self.sync()
                return
            except BaseException:
                turn.deleteLater()
                self._syncing = False
                raise
            if self.itemIndexMethod() is QGraphicsScene.ItemIndexMethod.BspTreeIndex:
                self.items(FAR_AWAY)  # indexes what this slice added (see ``_index_as_added``); unindexed,
                # the query would only test every item of the design being replaced (17 ms at 10,000 VMs)
            if progress is not None:
                progress(done, total)
            turn.start()

        turn.timeout.connect(step)
        self._dirty_meanwhile = False
        turn.start()

    def _sync_steps(self, clock: Slices | None = None):
        """``_sync`` in steps: yields (done, total) whenever ``clock``'s slice is used up (never without one), so
        a large design can be drawn, or replaced, a slice at a time while the window keeps answering."""
        clock = clock or Slices()
        topo = self.topology
        places = topo.layout.places
        self._place_of = {id(p): oid for oid, p in places.items()}
        self.spans = members(topo)
        wanted: dict[str, Drawn] = {}
        for d in iter_drawn(topo):
            wanted[d.key] = d
            if clock.due():
                yield 0, 0
                clock.restart()
        gone = [o for o in self.nodes if o not in wanted or self.nodes[o].kind != wanted[o].kind]
        if len(gone) > 2000:  # thousands of items go (another design replaces this one): unindexed, it is quick
            # Dropping the index of 40,000 items takes some 40 ms on its own (Qt sorts them all for the new
            # one): a turn of its own, or with the slice before it and a paint it stalled the window 100 ms
            if clock.budget:
                yield 0, len(wanted)
                clock.restart()
            self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
            if clock.budget:
                yield 0, len(wanted)
                clock.restart()
        for oid in gone:
            self._remove_node(oid)
            if clock.due():
                yield 0, len(wanted)
                clock.restart()
        switch_of = {pg.id: sw for sw in topo.switches for pg in sw.portgroups}
        self.shown, self.keys_of, self.held, self.inner, self.parent_of = wanted, {}, {}, set(), {}
        for key, d in wanted.items():
            self.keys_of.setdefault(d.ref, []).append(key)
            if d.parent:
                self.held.setdefault(d.parent, []).append(key)
                self.inner.add(key)
                self.parent_of[key] = d.parent
            if clock.due():
                yield 0, len(wanted)
                clock.restart()
        counts = self._host_counts = self._counts(wanted)
        arranged = remembered(topo)
        if clock.due():
            yield 0, len(wanted)
            clock.restart()
        self.arranged = arranged.by_id() if arranged is not None else {}
        if clock.due():  # (tens of thousands of boxes: each table a turn of its own)
            yield 0, len(wanted)
            clock.restart()
        self.arranged_edges = {e.id: e for e in arranged.edges} if arranged is not None else {}
        if clock.due():
            yield 0, len(wanted)
            clock.restart()
        total, made = len(wanted), 0
        if total - len(self.nodes) > 2000 or len(gone) > 2000:  # thousands of new items
            self._index_as_added(wanted, places)
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
            if clock.due():
                yield made, total
                clock.restart()
        yield from self._fit_frames_steps(clock)
        yield from self._sync_links(clock)
        if clock.budget:  # what is left takes tens of milliseconds on a large design: a turn of its own
            yield made, total
        self.overlay.refresh()
        if self.overview:
            yield from self.bundles.refresh_steps(clock, (made, total))
        if clock.budget:
            yield made, total
        if self.deploy_states:
            self.show_deploy_states(self.deploy_states)
        self._select_ids(self.workbench.selection)
        self.drawn.emit()

    def _index_as_added(self, wanted: dict[str, Drawn], places: dict[str, Place]) -> None:
        """Thousands of items are about to be added a slice at a time: the scene's index (a BSP tree) is made
        once, as deep as their number needs and over the extent of their places, so each slice's items are indexed
        at the end of that slice (``sync_gradually``) and the tree is never rebuilt whole (one build of forty
        thousand items stalls the window for a fifth of a second), and a paint meanwhile visits only what it
        shows. Qt sizes the tree once, on its first use, and rebuilds it whenever the scene's rectangle grows:
        both are fixed here."""
        tops = [p for key, d in wanted.items() if d.parent is None and (p := places.get(key)) is not None]
        if tops:
            left, top = min(p.x for p in tops), min(p.y for p in tops)
            right, bottom = max(p.x + (p.w or 0) for p in tops), max(p.y + (p.h or 0) for p in tops)
            extent = QRectF(left, top, right - left, bottom - top)
            self.setSceneRect(extent.adjusted(-INDEX_MARGIN, -INDEX_MARGIN, INDEX_MARGIN, INDEX_MARGIN))
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        items = len(wanted) * ITEMS_PER_OBJECT
        self.setBspTreeDepth(max(5, math.ceil(math.log2(max(2, items)))))  # Qt's own rule, for the final count

    def _counts(self, wanted: dict[str, Drawn]) -> dict[str, str]:
        """What each host holds, for its label when zoomed far out."""
        vms: dict[str, int] = {}
        switches: dict[str, int] = {}
        for d in wanted.values():
            if d.kind == "vm" and d.parent:
                vms[d.parent] = vms.get(d.parent, 0) + 1
            elif d.kind == "switch" and d.parent:
                switches[d.parent] = switches.get(d.parent, 0) + 1
        self.vms_in = vms
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
