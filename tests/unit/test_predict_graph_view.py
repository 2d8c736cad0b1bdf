"""``graph.without_edges``: a search through a view that leaves some edges out, with the graph itself untouched."""

from __future__ import annotations

import pytest

from vnetbench.predict import graph


def _square() -> graph.Graph:
    g = graph.Graph()
    g.add_edge(1, 2, kind="team")       # the short way, through an edge the view leaves out
    g.add_edge(1, 3, kind="uplink")
    g.add_edge(3, 4, kind="trunk")
    g.add_edge(4, 2, kind="uplink")
    g.add_node(5)
    return g


def test_a_path_through_the_view_avoids_the_left_out_edges():
    g = _square()
    view = graph.without_edges(g, lambda data: data["kind"] != "team")
    assert graph.bidirectional_shortest_path(g, 1, 2) == [1, 2]
    assert graph.bidirectional_shortest_path(view, 1, 2) == [1, 3, 4, 2]
    assert 5 in view and list(view[1]) == [3] and list(g[1]) == [2, 3]


def test_no_path_when_only_left_out_edges_join():
    g = graph.Graph()
    g.add_edge("a", "b", kind="team")
    with pytest.raises(graph.NetworkXNoPath):
        graph.bidirectional_shortest_path(graph.without_edges(g, lambda data: data["kind"] != "team"), "a", "b")
