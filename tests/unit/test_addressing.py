"""Free addresses for copies (model/addressing.py): the next address nobody uses, within the subnet."""

from __future__ import annotations

import ipaddress

from vnetbench.model.addressing import next_free, readdress


def used(*addresses: str) -> set:
    return {ipaddress.ip_address(a) for a in addresses}


def test_the_next_free_address_skips_taken_ones_and_keeps_the_prefix():
    assert next_free("10.0.0.5/24", used("10.0.0.5", "10.0.0.6", "10.0.0.7")) == "10.0.0.8/24"


def test_the_search_wraps_round_and_never_gives_the_network_or_broadcast_address():
    assert next_free("10.0.0.254/24", used("10.0.0.254")) == "10.0.0.1/24"
    assert next_free("10.0.0.1/30", used("10.0.0.1")) == "10.0.0.2/30"
    assert next_free("10.0.0.2/30", used("10.0.0.2", "10.0.0.1")) == "10.0.0.2/30"  # full: it keeps its own


def test_a_copy_and_its_interfaces_each_take_their_own_address():
    class Nic:
        def __init__(self, ip: str) -> None:
            self.ip = ip

    class Router:
        ip = None
        interfaces = [Nic("10.1.0.1/24"), Nic("10.2.0.1/24"), Nic("")]

    taken = used("10.1.0.1", "10.1.0.2", "10.2.0.1")
    router = Router()
    readdress(router, taken)
    assert [n.ip for n in router.interfaces] == ["10.1.0.3/24", "10.2.0.2/24", ""]
    assert used("10.1.0.3", "10.2.0.2") <= taken
