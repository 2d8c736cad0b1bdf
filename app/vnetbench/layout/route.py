"""Orthogonal routing between bands of boxes: the links never pass through a box that is not one of their ends.

A level of the drawing (a host's inside, or the whole design) is a stack of bands: rows of boxes side by side.
Between two bands runs a channel holding only lines. A link leaves its box vertically (from the bottom or the top
side) into the adjacent channel, runs horizontally on a track of its own, passes a band it has to cross through a
gap between two boxes (on a lane of its own), and so on until it enters its other end from the channel next to it.
So every segment lies in a channel or a gap, never in a box. Gaps too narrow for their lanes are widened (the
boxes right of them move), and channels are made as tall as their tracks need.

Tracks are ordered so that a line coming down into a channel is not crossed by the horizontal part of a line
above it when the other order avoids that (the vertical constraints of classic channel routing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

LANE = 8.0          # between two lines running side by side
MARGIN = 12.0       # between a line and the box it passes
CHANNEL_MIN = 24.0  # a channel with no tracks


@dataclass
class Item:
    """A box in a band (at this level: a child frame counts as one item). ``x`` may change when gaps widen."""

    key: str
    x: float
    w: float
    h: float


@dataclass
class Band:
    items: list[Item]
    h: float
    y: float = 0.0
    gap_lanes: dict[int, list] = field(default_factory=dict)  # gap index -> links passing, in lane order

    def sort(self) -> None:
        self.items.sort(key=lambda it: it.x)


@dataclass
class Pin:
    """One end of a link: on ``item`` (in ``band``), at ``dx`` from the item's left and ``dy`` below its top,
    leaving downwards (``side`` 1) or upwards (-1)."""

    band: int
    item: Item
    dx: float
    dy: float
    side: int

    @property
    def x(self) -> float:
        return self.item.x + self.dx

    def channel(self) -> int:
        """The channel the pin opens into (channel c lies above band c)."""
        return self.band + 1 if self.side > 0 else self.band


@dataclass
class Route:
    key: str
    a: Pin
    b: Pin
    gaps: list[tuple[int, int]] = field(default_factory=list)  # (band, gap index) crossed, in order
    lanes: list[float] = field(default_factory=list)
    tracks: dict[int, float] = field(default_factory=dict)     # channel -> y of its horizontal part
    reserved: int | None = None  # a track index fixed by the caller (a bus)

    def channels(self) -> list[int]:
        ca, cb = self.a.channel(), self.b.channel()
        step = 1 if cb >= ca else -1
        return list(range(ca, cb + step, step))

    def crossed(self) -> list[int]:
        ca, cb = self.a.channel(), self.b.channel()
        return list(range(ca, cb)) if cb > ca else list(range(ca - 1, cb - 1, -1))

    def points(self, bands: list[Band]) -> list[tuple[float, float]]:
        a, b = self.a, self.b
        pts = [(a.x, bands[a.band].y + a.dy)]
        xs = [a.x] + self.lanes + [b.x]
        chans = self.channels()
        for i, c in enumerate(chans):
            y = self.tracks[c]
            pts.append((xs[i], y))
            pts.append((xs[i + 1], y))
        pts.append((b.x, bands[b.band].y + b.dy))
        return simplify(pts)


def simplify(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Drop repeated points and the middle of three in a line."""
    out: list[tuple[float, float]] = []
    for p in points:
        if out and abs(out[-1][0] - p[0]) < 1e-6 and abs(out[-1][1] - p[1]) < 1e-6:
            continue
        if len(out) >= 2:
            (x0, y0), (x1, y1) = out[-2], out[-1]
            if (abs(x0 - x1) < 1e-6 and abs(x1 - p[0]) < 1e-6) or (abs(y0 - y1) < 1e-6 and abs(y1 - p[1]) < 1e-6):
                out[-1] = p
                continue
        out.append(p)
    return out


def _gaps(band: Band) -> list[tuple[float, float]]:
    """The free spans of a band, left to right: before the first item, between items, after the last."""
    items = band.items
    if not items:
        return [(-1e9, 1e9)]
    spans = [(-1e9, items[0].x)]
    spans += [(a.x + a.w, b.x) for a, b in zip(items, items[1:])]
    spans.append((items[-1].x + items[-1].w, 1e9))
    return spans


def _lane_centre(span: tuple[float, float]) -> float:
    lo, hi = span
    if lo < -1e8:
        return hi - MARGIN
    if hi > 1e8:
        return lo + MARGIN
    return (lo + hi) / 2


def _choose_gap(band: Band, x_from: float, x_to: float) -> int:
    """The gap a line from ``x_from`` towards ``x_to`` crosses this band in: the one costing the least detour."""
    best, best_cost = 0, float("inf")
    for g, span in enumerate(_gaps(band)):
        x = _lane_centre(span)
        cost = abs(x - x_from) + abs(x - x_to)
        if cost < best_cost - 1e-6:
            best, best_cost = g, cost
    return best


def route(bands: list[Band], routes: list[Route], gap: float, reserved_tracks: dict[int, int] | None = None,
          top: float = 0.0, channel_min: dict[int, float] | None = None) -> list[float]:
    """Route every link; widens gaps (moving items), sets each band's ``y`` and each route's tracks.

    ``gap`` is the least space between two items of a band; ``reserved_tracks`` keeps the first tracks of a
    channel for routes with ``reserved`` set. Returns the top y of every channel (one more than bands)."""
    for band in bands:
        band.sort()
    # 1. gaps: choose, count lanes, widen
    for band in bands:
        band.gap_lanes = {}
    for r in routes:
        r.gaps = []
        x = r.a.x
        for k in r.crossed():
            g = _choose_gap(bands[k], x, r.b.x)
            r.gaps.append((k, g))
            bands[k].gap_lanes.setdefault(g, []).append(r)
            x = _lane_centre(_gaps(bands[k])[g])
    for k, band in enumerate(bands):
        shift = 0.0
        items = band.items
        for i, item in enumerate(items):
            item.x += shift
            if i == 0:
                continue
            lanes = len(band.gap_lanes.get(i, ()))
            need = max(gap, 2 * MARGIN + (lanes - 1) * LANE) if lanes else gap
            have = item.x - (items[i - 1].x + items[i - 1].w)
            if have < need:
                item.x += need - have
                shift += need - have
    # 2. lanes: in each gap, ordered by where the lines come from and go to
    lane_x: dict[tuple[int, int, str], float] = {}
    for k, band in enumerate(bands):
        spans = _gaps(band)
        for g, rs in band.gap_lanes.items():
            rs.sort(key=lambda r: (r.a.x + r.b.x, r.key))
            lo, hi = spans[g]
            n = len(rs)
            if lo < -1e8:
                xs = [hi - MARGIN - (n - 1 - i) * LANE for i in range(n)]
            elif hi > 1e8:
                xs = [lo + MARGIN + i * LANE for i in range(n)]
            else:
                mid = (lo + hi) / 2
                xs = [mid + (i - (n - 1) / 2) * LANE for i in range(n)]
            for r, x in zip(rs, xs):
                lane_x[(k, g, r.key)] = x
    for r in routes:
        r.lanes = [lane_x[(k, g, r.key)] for k, g in r.gaps]
    # 3. tracks per channel
    per_channel: dict[int, list[tuple[Route, float, float, list[float], list[float]]]] = {}
    for r in routes:
        xs = [r.a.x] + r.lanes + [r.b.x]
        chans = r.channels()
        last = len(chans) - 1
        for i, c in enumerate(chans):
            ups: list[float] = []
            downs: list[float] = []
            # the vertical at each end of this horizontal part goes up (to the band above) or down
            left_up = r.a.side > 0 if i == 0 else chans[i - 1] < c
            right_up = r.b.side > 0 if i == last else chans[i + 1] < c
            (ups if left_up else downs).append(xs[i])
            (ups if right_up else downs).append(xs[i + 1])
            per_channel.setdefault(c, []).append((r, min(xs[i], xs[i + 1]), max(xs[i], xs[i + 1]), ups, downs))
    reserved_tracks = reserved_tracks or {}
    counts: dict[int, int] = {}
    track_of: dict[tuple[int, str], int] = {}
    for c, segs in per_channel.items():
        base = reserved_tracks.get(c, 0)
        fixed = [(s, s[0].reserved) for s in segs if s[0].reserved is not None]
        free = [s for s in segs if s[0].reserved is None]
        for s, t in fixed:
            track_of[(c, s[0].key)] = t
        assigned = _assign(free, base)
        for s, t in zip(free, assigned):
            track_of[(c, s[0].key)] = t
        counts[c] = max([base] + [t + 1 for t in assigned] + [t + 1 for _, t in fixed])
    # 4. heights and y
    channel_min = channel_min or {}
    tops: list[float] = []
    y = top
    for c in range(len(bands) + 1):
        n = counts.get(c, 0)
        height = max(CHANNEL_MIN, 2 * MARGIN + (n - 1) * LANE if n else CHANNEL_MIN, channel_min.get(c, 0.0))
        tops.append(y)
        y += height
        if c < len(bands):
            bands[c].y = y
            y += bands[c].h
    tops.append(y)
    for r in routes:
        r.tracks = {c: tops[c] + MARGIN + track_of[(c, r.key)] * LANE for c in r.channels()}
    return tops


def _assign(segs: list, base: int) -> list[int]:
    """Tracks for horizontal segments ``(route, lo, hi, ups, downs)`` of one channel: overlapping ones on
    different tracks, and where two overlap, the one whose line would otherwise be crossed goes above."""
    n = len(segs)
    if not n:
        return []
    order = sorted(range(n), key=lambda i: (segs[i][1], segs[i][2]))
    above: list[set[int]] = [set() for _ in range(n)]  # i in above[j]: i must be above j
    for ii in range(n):
        i = order[ii]
        _, lo_i, hi_i, up_i, down_i = segs[i]
        for jj in range(ii + 1, n):
            j = order[jj]
            _, lo_j, hi_j, up_j, down_j = segs[j]
            if lo_j > hi_i + LANE:
                break
            cost_i_above = _inside(up_i, lo_j, hi_j) + _inside(down_j, lo_i, hi_i)
            cost_j_above = _inside(up_j, lo_i, hi_i) + _inside(down_i, lo_j, hi_j)
            if cost_i_above < cost_j_above:
                above[j].add(i)
            elif cost_j_above < cost_i_above:
                above[i].add(j)
    # Kahn's order over "above", breaking cycles by the leftmost segment
    indeg = [len(a) for a in above]
    below: list[list[int]] = [[] for _ in range(n)]
    for j in range(n):
        for i in above[j]:
            below[i].append(j)
    done = [False] * n
    track = [0] * n
    occupied: list[list[tuple[float, float]]] = []
    ready = [i for i in order if indeg[i] == 0]
    remaining = n
    while remaining:
        if not ready:
            ready = [next(i for i in order if not done[i])]
        i = ready.pop(0)
        if done[i]:
            continue
        done[i] = True
        remaining -= 1
        _, lo, hi, _, _ = segs[i]
        t = max([track[p] + 1 for p in above[i] if done[p]], default=0)
        while t < len(occupied) and any(lo <= h + LANE and l <= hi + LANE for l, h in occupied[t]):
            t += 1
        while len(occupied) <= t:
            occupied.append([])
        occupied[t].append((lo, hi))
        track[i] = t
        for j in below[i]:
            indeg[j] -= 1
            if indeg[j] == 0 and not done[j]:
                ready.append(j)
    return [base + t for t in track]


def _inside(xs: list[float], lo: float, hi: float) -> int:
    return sum(1 for x in xs if lo - 1e-6 <= x <= hi + 1e-6)
