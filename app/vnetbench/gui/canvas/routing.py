"""Routing: the canvas's links, where their ends are and the path each line takes (the automatic layout's
route while both ends are where it put them, else a plain one)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF

from .drawn import iter_links, layout_edge_id
from .items import LinkItem, HandleItem
from .framing import same_box
from .slicing import Slices


class Routing:
    """The routing part of ``DesignScene`` (see ``scene``)."""

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

    def _sync_links(self, clock: Slices | None = None):
        """Make the link items match the model, yielding (done, total) whenever ``clock``'s slice is used up."""
        clock = clock or Slices()
        found: dict[str, tuple] = {}
        for key, ends in iter_links(self.topology, self.spans, self.host_rows()):
            found[key] = ends
            if clock.due():
                yield 0, 0
                clock.restart()
        handles, nodes = self.handles, self.nodes
        wanted = {key: (style, a, b) for key, (style, a, b) in found.items()
                  if a and b and (a in handles or a in nodes) and (b in handles or b in nodes)}
        if clock.due():
            yield 0, len(wanted)
            clock.restart()
        for key in [k for k in self.links if k not in wanted or
                    (self.links[k].style, self.links[k].a, self.links[k].b) != wanted[k]]:
            self.removeItem(self.links.pop(key))
            if clock.due():
                yield 0, len(wanted)
                clock.restart()
        self.touching = {}
        made = 0
        still = set()
        for key, item in self.nodes.items():
            if key in self.arranged and same_box(item.mapRectToScene(item.size), self.arranged[key]):
                still.add(key)
            if clock.due():
                yield 0, len(wanted)
                clock.restart()
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
            if clock.due():
                yield made, len(wanted)
                clock.restart()
        self.bundles.stale = True
        connected = {end for item in self.links.values() for end in (item.a, item.b)}
        for hid, handle in self.handles.items():
            handle.connected = hid in connected
            if clock.due():
                yield made, len(wanted)
                clock.restart()

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
        return item is not None and box is not None and same_box(item.mapRectToScene(item.size), box)

    def _centre(self, oid: str) -> QPointF:
        item = self.anchor_item(oid)
        return item.scenePos() if isinstance(item, HandleItem) else item.mapRectToScene(item.size).center()

    def reroute(self, node_ids) -> None:
        keys = set()
        for oid in node_ids:
            keys |= self.touching.get(oid, set())
        for key in keys:
            self._route(self.links[key])
        self.bundles.stale = self.bundles.stale or bool(keys)
