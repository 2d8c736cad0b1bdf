"""A firewall's first-match verdict for many (key, other) pairs of interface points at once.

The matrix asks one rule list (a routed firewall's, a bridged firewall's, the NSX DFW at the source or at the
destination) about millions of pairs. Walking the rule list per pair is what made rule-per-VM designs take
minutes. Instead each rule is two sets of points: the *key* side (the points the table is read for: the
source of a firewall's rule, the vNIC a DFW rule is applied at and matches) and the *other* side. Then:

- points that belong to exactly the same wide sets are one *group* (key side) or *atom* (other side): the
  "atomic predicates" of network verifiers. Rules whose both sides are wide fill a small first-match table
  group x atom;
- a rule naming a few keys (a rule per VM) gives each of those keys a row of its own in that table;
- a rule naming a few others under a wide key set is a *column exception*, and one naming a few of both a
  *cell exception*; both are merged by rule order where a query meets them.

A query is then two gathers from a boolean table plus its exceptions. The table answers what
``rules.evaluate`` answers for every pair (the property tests compare them); the caller decides which rules
can match at all (``rules.generic``) and turns specs into point sets. This module only indexes: which rule
decides among candidates, what it permits and where the list is enforced are ``decide``'s rules
(``earlier``, ``permits``, ``unenforced``), the same the walk's rule book calls.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from .decide import earlier, permits, unenforced

#: A rule side matching at most this many points is listed point by point instead of joining the partition.
NARROW = 4
#: Column exceptions become atoms of their own while the table stays under this many cells.
_FOLD = 8_000_000
#: ``RuleSets`` remembers rows up to this many cells (then starts again).
_ROW_CELLS = 1 << 24


def take(table: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``table[rows][:, cols]`` as a C-ordered array, through the smaller intermediate (``np.take`` is several
    times faster than fancy indexing here), or directly where either intermediate would be many times the
    answer (a few rows of a wide table: the subnets of a block's sources)."""
    by_cols, by_rows = table.shape[0] * len(cols), len(rows) * table.shape[1]
    if min(by_cols, by_rows) > 16 * len(rows) * len(cols):
        return table[np.ix_(rows, cols)]
    if by_cols <= by_rows:
        return np.take(np.take(table, cols, axis=1), rows, axis=0)
    return np.take(np.take(table, rows, axis=0), cols, axis=1)


def _partition(n: int, sets: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Split points 0..n-1 by membership in ``sets``: (part of each point, membership[distinct set, part],
    which distinct set each of ``sets`` is)."""
    distinct: dict[bytes, int] = {}
    which = [distinct.setdefault(s.tobytes(), len(distinct)) for s in sets]
    if not distinct:
        return np.zeros(n, dtype=np.int32), np.zeros((0, 1), dtype=bool), which
    member = np.zeros((n, len(distinct)), dtype=bool)
    for s, w in zip(sets, which):
        member[s, w] = True
    packed = np.packbits(member, axis=1)
    rows = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1])))[:, 0]
    _, first, part = np.unique(rows, return_index=True, return_inverse=True)
    return part.astype(np.int32).ravel(), member[first].T.copy(), which


class FirstMatch:
    """The first-match verdicts of one rule list over ``n`` points (see the module docstring).

    ``keys[r]`` and ``others[r]`` are the sorted point indices rule r matches on each side, ``allow[r]`` its
    action; ``enforced`` marks the keys the list applies at (the others are always allowed), None for all.
    """

    def __init__(self, n: int, keys: Sequence[np.ndarray], others: Sequence[np.ndarray], allow: Sequence[bool] | np.ndarray,
                 default_allow: bool, enforced: np.ndarray | None = None) -> None:
        self.n = n
        rules = len(keys)
        self.none = rules                       # the index of "no rule matched": the default policy
        self.dtype = np.int16 if rules < np.iinfo(np.int16).max else np.int32
        self.act = np.append(np.asarray(allow, dtype=bool), default_allow)
        self.enforced = enforced
        wide_k = [r for r in range(rules) if len(keys[r]) > NARROW]
        wide_o = [r for r in range(rules) if len(others[r]) > NARROW]
        self.group, kmember, kwhich = _partition(n, [keys[r] for r in wide_k])
        self.atom, omember, owhich = _partition(n, [others[r] for r in wide_o])
        kset = dict(zip(wide_k, kwhich))
        oset = dict(zip(wide_o, owhich))
        self.kmember = kmember                   # [distinct wide key set, group]
        groups, atoms = kmember.shape[1], omember.shape[1]

        table = np.full((groups, atoms), self.none, dtype=self.dtype)
        for r in range(rules):                   # both sides wide
            if r in kset and r in oset:
                at = np.ix_(np.flatnonzero(kmember[kset[r]]), np.flatnonzero(omember[oset[r]]))
                table[at] = earlier(table[at], r)

        # a few keys, many others: those keys get rows of their own
        own = [r for r in range(rules) if r not in kset and r in oset and len(keys[r])]
        self.gid = self.group.copy()
        row_group = np.arange(groups)            # each table row's group (own rows: their key's)
        if own:
            pk = np.concatenate([keys[r] for r in own])
            pr = np.concatenate([np.full(len(keys[r]), r) for r in own])
            order = np.lexsort((pr, pk))
            pk, pr = pk[order], pr[order]
            own_keys, starts = np.unique(pk, return_index=True)
            cand = np.where(omember[[oset[r] for r in pr]], pr[:, None], self.none).astype(self.dtype)
            rows = earlier(table[self.group[own_keys]], np.minimum.reduceat(cand, starts, axis=0))
            self.gid[own_keys] = groups + np.arange(len(own_keys))
            table = np.vstack([table, rows])
            row_group = np.concatenate([row_group, self.group[own_keys]])

        # a few others under many keys: column exceptions (key side as a group mask), by column then rule
        cols = sorted((int(o), r) for r in range(rules) if r in kset and r not in oset for o in others[r])
        self.col_rule = np.array([r for _, r in cols], dtype=np.int64)
        self.col_kset = np.array([kset[r] for _, r in cols], dtype=np.int64)
        self.col_of, self.col_ptr = np.unique(np.array([o for o, _ in cols], dtype=np.int64), return_index=True)
        self.col_ptr = np.append(self.col_ptr, len(cols))
        if len(self.col_of) and table.shape[0] * (table.shape[1] + len(self.col_of)) <= _FOLD:
            # few enough: each such column becomes an atom of its own, merged with its rules once
            extra = table[:, self.atom[self.col_of]]
            self._merge_columns(np.arange(len(self.col_of)), row_group[None, :], extra.T, per_row=False)
            self.atom = self.atom.copy()
            self.atom[self.col_of] = table.shape[1] + np.arange(len(self.col_of))
            table = np.hstack([table, extra])
            self.col_of = np.zeros(0, dtype=np.int64)
        self.table = table
        self.allowed_table = permits(self.act, table)
        self.allowed_table_t = np.ascontiguousarray(self.allowed_table.T)
        # a few of both: cell exceptions, each cell with its first rule
        cells = sorted({(int(k), int(o)): r for r in reversed(range(rules)) if r not in kset and r not in oset
                        for k in keys[r] for o in others[r]}.items())
        self.cell_key = np.array([k for (k, _), _ in cells], dtype=np.int64)
        self.cell_other = np.array([o for (_, o), _ in cells], dtype=np.int64)
        self.cell_rule = np.array([r for _, r in cells], dtype=np.int64)
        self._kpos, self._opos = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)

    def allowed(self, keys: np.ndarray, others: np.ndarray, transpose: bool = False) -> np.ndarray:
        """Whether the list lets (key, other) pass, for every key x other: shape [keys, others], or
        [others, keys] with ``transpose``."""
        if transpose:
            out = take(self.allowed_table_t, self.atom[others], self.gid[keys])
            view = out.T
        else:
            out = take(self.allowed_table, self.gid[keys], self.atom[others])
            view = out
        if len(self.col_of) or len(self.cell_key):
            self._exceptions(keys, others, view)
        unenforced(view, self.enforced, keys)
        return out

    def _exceptions(self, keys: np.ndarray, others: np.ndarray, view: np.ndarray) -> None:
        """Merge the column and cell exceptions that fall inside keys x others into ``view`` [keys, others]."""
        kpos, opos = self._kpos, self._opos      # scratch: position of each point in keys / others, else -1
        kpos[keys], opos[others] = np.arange(len(keys)), np.arange(len(others))
        try:
            self._merge(keys, others, view, kpos, opos)
        finally:
            kpos[keys], opos[others] = -1, -1

    def _merge(self, keys: np.ndarray, others: np.ndarray, view: np.ndarray, kpos: np.ndarray,
               opos: np.ndarray) -> None:
        columns = np.flatnonzero(opos[self.col_of] >= 0)          # exception columns among the others
        if len(columns):
            idx = self.table[self.gid[keys]][:, self.atom[self.col_of[columns]]]
            self._merge_columns(columns, self.group[keys][None, :], idx.T, per_row=False)
            view[:, opos[self.col_of[columns]]] = permits(self.act, idx)
        cells = np.flatnonzero((kpos[self.cell_key] >= 0) & (opos[self.cell_other] >= 0))
        if len(cells):
            k, o = self.cell_key[cells], self.cell_other[cells]
            idx = self.table[self.gid[k], self.atom[o]][:, None]
            at = np.searchsorted(self.col_of, o)
            hit = (at < len(self.col_of)) & (self.col_of[np.minimum(at, len(self.col_of) - 1)] == o) \
                if len(self.col_of) else np.zeros(len(o), dtype=bool)
            if hit.any():
                sub = idx[hit]
                self._merge_columns(at[hit], self.group[k[hit]][:, None], sub, per_row=True)
                idx[hit] = sub
            view[kpos[k], opos[o]] = permits(self.act, earlier(idx[:, 0], self.cell_rule[cells]))

    def _merge_columns(self, columns: np.ndarray, groups: np.ndarray, idx: np.ndarray, per_row: bool) -> None:
        """Lower ``idx`` (in place; one row per entry of ``columns``) to the column exceptions whose key set
        holds the key's group: ``groups`` is one row for all (``per_row`` False) or one per row. Exceptions
        are taken one layer (the l-th of each column) at a time."""
        counts = self.col_ptr[columns + 1] - self.col_ptr[columns]
        for layer in range(int(counts.max(initial=0))):
            rows = np.flatnonzero(counts > layer)
            pair = self.col_ptr[columns[rows]] + layer
            rule = self.col_rule[pair][:, None]
            member = self.kmember[self.col_kset[pair][:, None], groups[rows] if per_row else groups]
            sub = idx[rows]
            idx[rows] = earlier(np.where(member, rule, self.none), sub)


class RuleSets:
    """The same rule list answered without a table, for a few keys or a few others at a time: each asked
    point's rules (found in the concatenated sides) are painted over the whole other side, the first match
    kept, and that point's row is remembered (an edit asks the same points again, a block of columns at a
    time). An edit then costs no table build; a full matrix uses ``FirstMatch``."""

    def __init__(self, n: int, keys: Sequence[np.ndarray], others: Sequence[np.ndarray], allow: Sequence[bool] | np.ndarray,
                 default_allow: bool, enforced: np.ndarray | None = None) -> None:
        self.n, self.keys, self.others = n, keys, others
        self.allow, self.default = np.asarray(allow, dtype=bool), default_allow
        self.act = np.append(self.allow, default_allow)
        self.none = len(keys)
        self.enforced = enforced
        self._flat: dict[int, _Flat] = {}
        self._rows: dict[tuple[int, int], np.ndarray] = {}

    def indexed(self) -> RuleSets:
        """These rule sets with both sides' index made now (``_rules_holding``), so the sets spliced from them
        carry it: a DFW of tens of thousands of rules is indexed once, not at the first edit asking a side."""
        for side in (0, 1):
            self._index(side)
        return self

    def _index(self, side: int) -> _Flat:
        if side not in self._flat:
            sets = self.keys if side == 0 else self.others
            ids = np.fromiter((id(points) for points in sets), dtype=np.uint64, count=len(sets))
            _, first, which = np.unique(ids, return_index=True, return_inverse=True)
            arrays = [sets[i] for i in first.tolist()]
            self._flat[side] = _Flat(arrays, which.ravel())
        return self._flat[side]

    def _rules_holding(self, side: int, point: int) -> np.ndarray:
        """The rules (ascending) whose side 0 (keys) or 1 (others) holds the point. Rules share their set
        arrays (one per address or name), so each distinct array is searched once: the distinct arrays
        concatenated (``flat``, with the array each entry comes from) and each rule's array among them."""
        flat = self._index(side)
        return np.flatnonzero(np.isin(flat.which, flat.owner[flat.points == point]))

    def spliced(self, lo: int, hi: int, keys: Sequence[np.ndarray], others: Sequence[np.ndarray],
                allow: Sequence[bool]) -> RuleSets:
        """These rule sets with rules lo..hi-1 replaced by the given ones (a DFW edit): the unchanged rules'
        arrays and the index of them ``allowed`` searches are carried over, not read again."""
        out = RuleSets(self.n, [*self.keys[:lo], *keys, *self.keys[hi:]],
                       [*self.others[:lo], *others, *self.others[hi:]],
                       np.concatenate([self.allow[:lo], np.asarray(allow, dtype=bool), self.allow[hi:]]),
                       self.default, self.enforced)
        for side, flat in self._flat.items():
            out._flat[side] = flat.spliced(lo, hi, keys if side == 0 else others)
        return out

    def allowed(self, keys: np.ndarray, others: np.ndarray, transpose: bool = False) -> np.ndarray:
        """As ``FirstMatch.allowed``; meant for ``keys`` or ``others`` of a few points."""
        few, many, side = (keys, others, 0) if len(keys) <= len(others) else (others, keys, 1)
        rows = np.stack([self._row(side, int(point)) for point in few.tolist()]) if len(few) else \
            np.zeros((0, self.n), dtype=bool)
        out = take(rows, np.arange(len(few)), many)
        if side == 1:
            out = out.T                                     # [keys, others]
        unenforced(out, self.enforced, keys)
        return np.ascontiguousarray(out.T) if transpose else out

    def _row(self, side: int, point: int) -> np.ndarray:
        """Whether the list lets each point pass with ``point`` on ``side`` (0: as the key), remembered."""
        found = self._rows.get((side, point))
        if found is None:
            rule = np.full(self.n, self.none, dtype=np.int64)
            painted = self.others if side == 0 else self.keys
            for r in self._rules_holding(side, point).tolist():
                at = painted[r]
                rule[at] = earlier(rule[at], r)
            if len(self._rows) * self.n >= _ROW_CELLS:
                self._rows.clear()
            found = self._rows[(side, point)] = permits(self.act, rule)
        return found


class _Flat:
    """One side's distinct set arrays concatenated (``points``, with the array each entry comes from in
    ``owner``) and each rule's array among them (``which``); ``index`` finds an array's place by identity."""

    def __init__(self, arrays: list[np.ndarray], which: np.ndarray) -> None:
        self.arrays, self.which = arrays, which
        self.index = {id(a): i for i, a in enumerate(arrays)}
        self.points = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        self.owner = np.repeat(np.arange(len(arrays)), [len(a) for a in arrays])

    def spliced(self, lo: int, hi: int, sets: Sequence[np.ndarray]) -> _Flat:
        """The index with rules lo..hi-1 replaced by rules on ``sets``: their new arrays are appended (one no
        rule uses any more stays, named by no entry of ``which``)."""
        out = copy.copy(self)
        out.arrays, out.index = list(self.arrays), dict(self.index)
        added = []
        for points in sets:
            if id(points) not in out.index:
                out.index[id(points)] = len(out.arrays)
                out.arrays.append(points)
                added.append(points)
        if added:
            out.points = np.concatenate([self.points, *added])
            out.owner = np.concatenate([self.owner, np.repeat(np.arange(len(self.arrays), len(out.arrays)),
                                                              [len(a) for a in added])])
        mid = np.array([out.index[id(points)] for points in sets], dtype=self.which.dtype)
        out.which = np.concatenate([self.which[:lo], mid, self.which[hi:]])
        return out
