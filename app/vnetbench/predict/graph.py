"""The small undirected graph the compiled network keeps (segments and switches joined by edges with data),
with the three algorithms it runs: shortest path, connected components, the component of a node.

networkx did this, but importing it is half of ``vnetbench validate``'s start-up for four algorithms on
plain adjacency dicts. The API is networkx's where it is used (``add_edge`` merges data, ``edges[u, v]``,
``edges(n, data=True)``, ``g[n]``, ``subgraph``), and so are the results: the shortest path meets in the
middle exactly as ``networkx.bidirectional_shortest_path`` does (fringes in adjacency insertion order),
so the path chosen among equal ones, and the hops explained, stay the same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

#: A node: any hashable (segment numbers, switch ids); typed loosely so callers keep their own node types.
Node = Any


class NetworkXNoPath(Exception):
    """No path joins the two nodes (named as networkx names it, for the callers that catch it)."""


class NodeNotFound(Exception):
    """A node the graph does not hold."""


class _Edges:
    def __init__(self, adj: dict[Node, dict[Node, dict[str, Any]]]) -> None:
        self._adj = adj

    def __getitem__(self, ends: tuple[Node, Node]) -> dict[str, Any]:
        u, v = ends
        return self._adj[u][v]

    def __call__(self, nbunch: Any = None, data: bool = False) -> Iterator[tuple]:
        """Each edge once: of every node (``None``), of one node, or of the nodes in a collection."""
        adj = self._adj
        if nbunch is None:
            nodes: Iterable[Node] = adj
        elif isinstance(nbunch, Hashable) and nbunch in adj:
            nodes = [nbunch]
        else:
            nodes = [n for n in nbunch if n in adj]
        seen: set[Node] = set()
        for node in nodes:
            for peer, attrs in adj[node].items():
                if peer not in seen:
                    yield (node, peer, attrs) if data else (node, peer)
            seen.add(node)


class Graph:
    """An undirected graph with data on its edges: the part of networkx's ``Graph`` the compiled network uses."""

    def __init__(self) -> None:
        self.adj: dict[Node, dict[Node, dict[str, Any]]] = {}

    def add_node(self, node: Node) -> None:
        """Add a node (nothing when it is there)."""
        self.adj.setdefault(node, {})

    def add_nodes_from(self, nodes: Iterable[Node]) -> None:
        """Add every node given."""
        for node in nodes:
            self.add_node(node)

    def add_edge(self, u: Node, v: Node, **attrs: Any) -> None:
        """Join two nodes (adding them), merging ``attrs`` into the edge's data."""
        data = self.adj.setdefault(u, {}).get(v, {})
        data.update(attrs)
        self.adj[u][v] = data
        self.adj.setdefault(v, {})[u] = data

    @property
    def edges(self) -> _Edges:
        """The edges, as networkx reads them: ``edges(nodes, data=True)`` and ``edges[u, v]``."""
        return _Edges(self.adj)

    def subgraph(self, nodes: Iterable[Node]) -> Graph:
        """The nodes given (in the order given: a few nodes of a large graph cost no scan of it) and the edges
        among them, sharing their data."""
        order = [n for n in dict.fromkeys(nodes) if n in self.adj]
        keep = set(order)
        sub = Graph()
        sub.adj = {n: {p: d for p, d in self.adj[n].items() if p in keep} for n in order}
        return sub

    def __getitem__(self, node: Node) -> dict[Node, dict[str, Any]]:
        return self.adj[node]

    def __contains__(self, node: object) -> bool:
        return node in self.adj

    def __iter__(self) -> Iterator[Node]:
        return iter(self.adj)

    def __len__(self) -> int:
        return len(self.adj)


class _FilteredAdj(Mapping[Node, dict[Node, dict[str, Any]]]):
    """An adjacency without the edges ``keep`` refuses, filtered node by node as a search reaches them."""

    def __init__(self, adj: dict[Node, dict[Node, dict[str, Any]]], keep: Callable[[dict[str, Any]], bool]) -> None:
        self.adj, self.keep = adj, keep

    def __getitem__(self, node: Node) -> dict[Node, dict[str, Any]]:
        return {p: d for p, d in self.adj[node].items() if self.keep(d)}

    def __contains__(self, node: object) -> bool:
        return node in self.adj

    def __iter__(self) -> Iterator[Node]:
        return iter(self.adj)

    def __len__(self) -> int:
        return len(self.adj)


def without_edges(g: Graph, keep: Callable[[dict[str, Any]], bool]) -> Graph:
    """A view of ``g`` with only the edges whose data ``keep`` accepts: nothing is copied, so a search costs
    what it visits."""
    out = Graph()
    out.adj = _FilteredAdj(g.adj, keep)   # type: ignore[assignment]
    return out


def bidirectional_shortest_path(g: Graph, source: Node, target: Node) -> list[Node]:
    """A shortest path, searched from both ends at once, the smaller fringe first."""
    for node in (source, target):
        if node not in g.adj:
            raise NodeNotFound(f"{node} is not in the graph")
    pred: dict[Node, Node | None] = {source: None}
    succ: dict[Node, Node | None] = {target: None}
    meet = source if source == target else _meet(g.adj, pred, succ, source, target)
    path = []
    w: Node | None = meet
    while w is not None:
        path.append(w)
        w = pred[w]
    path.reverse()
    w = succ[path[-1]]
    while w is not None:
        path.append(w)
        w = succ[w]
    return path


def _meet(adj: dict, pred: dict, succ: dict, source: Node, target: Node) -> Node:
    forward, reverse = [source], [target]
    while forward and reverse:
        if len(forward) <= len(reverse):
            level, forward = forward, []
            for v in level:
                for w in adj[v]:
                    if w not in pred:
                        forward.append(w)
                        pred[w] = v
                    if w in succ:
                        return w
        else:
            level, reverse = reverse, []
            for v in level:
                for w in adj[v]:
                    if w not in succ:
                        succ[w] = v
                        reverse.append(w)
                    if w in pred:
                        return w
    raise NetworkXNoPath(f"no path between {source} and {target}")


shortest_path = bidirectional_shortest_path


def node_connected_component(g: Graph, node: Node) -> set[Node]:
    """The nodes reachable from ``node`` (itself included)."""
    seen = {node}
    level = [node]
    while level:
        nxt = []
        for v in level:
            for w in g.adj[v]:
                if w not in seen:
                    seen.add(w)
                    nxt.append(w)
        level = nxt
    return seen


def connected_components(g: Graph) -> Iterator[set[Node]]:
    """Each component once, in the order of its first node."""
    seen: set[Node] = set()
    for node in g.adj:
        if node not in seen:
            component = node_connected_component(g, node)
            seen |= component
            yield component
