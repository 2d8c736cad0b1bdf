"""The plan loop every backend shares: dependency rebuild until nothing grows, blocks spread, stable names."""

from __future__ import annotations

import hashlib

from vnetbench.backends import Op
from vnetbench.backends.planning import Want, design_tag, rebuild_dependents


def chain() -> dict[str, Want]:
    """netns/a <- bridge/a/br <- veth/v <- routes/a, and an unrelated netns/b."""
    wants = [Want("netns", "netns/a", {"ns": "a"}, "ns a"),
             Want("bridge", "bridge/a/br", {"ns": "a"}, "br", deps=("netns/a",)),
             Want("veth", "veth/v", {"a": 1}, "veth", deps=("bridge/a/br",)),
             Want("routes", "routes/a", {"r": []}, "routes", deps=("veth/v", "netns/a")),
             Want("netns", "netns/b", {"ns": "b"}, "ns b")]
    return {w.key: w for w in wants}


def test_a_change_rebuilds_everything_that_needs_it_transitively_and_nothing_else():
    ops = {"netns/a": (Op.UPDATE, "changed in the design")}
    rebuild_dependents(chain(), ops)
    assert ops == {"netns/a": (Op.UPDATE, "changed in the design"), "bridge/a/br": (Op.UPDATE, "rebuilt with a"),
                   "veth/v": (Op.UPDATE, "rebuilt with br"), "routes/a": (Op.UPDATE, "rebuilt with v")}


def test_rebuild_on_chooses_which_ops_spread():
    ops = {"netns/a": (Op.CREATE, "")}
    rebuild_dependents(chain(), ops, rebuild_on=(Op.UPDATE,))     # KVM: a fresh object rebuilds nothing
    assert ops == {"netns/a": (Op.CREATE, "")}
    rebuild_dependents(chain(), ops)                               # the local lab: it does
    assert set(ops) == {"netns/a", "bridge/a/br", "veth/v", "routes/a"}
    deleted = {"netns/a": (Op.DELETE, "no longer in the design")}
    rebuild_dependents(chain(), deleted)
    assert deleted == {"netns/a": (Op.DELETE, "no longer in the design")}


def test_a_block_spreads_to_what_needs_it_and_is_not_also_rebuilt():
    ops: dict[str, tuple[Op, str]] = {}
    blocked = {"bridge/a/br": "a foreign bridge"}
    rebuild_dependents(chain(), ops, blocked)
    assert blocked == {"bridge/a/br": "a foreign bridge", "veth/v": "it needs br, which is blocked",
                       "routes/a": "it needs v, which is blocked"}
    assert ops == {}


def test_names_and_marks_stay_what_deployed_labs_carry():
    assert design_tag("campus-1") == hashlib.sha1(b"campus-1").hexdigest()[:6]
    a = Want("bridge", "bridge/x", {"mtu": 1500, "ns": "x"}, "x")
    assert a.mark == Want("bridge", "bridge/x", {"ns": "x", "mtu": 1500}, "another description").mark
    assert a.mark != Want("bridge", "bridge/x", {"ns": "x", "mtu": 9000}, "x").mark and len(a.mark) == 12
