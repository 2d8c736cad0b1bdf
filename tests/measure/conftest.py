import pytest

from measure_netns import can_make_namespaces, make_pair, remove_pair


@pytest.fixture
def netns_pair():
    """Two namespaces joined by a veth (10.77.0.1 <-> 10.77.0.2); fails the test if a probe was left running."""
    if not can_make_namespaces():
        pytest.skip("needs root to create network namespaces (ip netns)")
    pair = make_pair()
    try:
        yield pair
    finally:
        leaks = remove_pair(pair.namespaces, (pair.a, pair.b))
    assert not leaks, f"the runner left commands running: {leaks}"
