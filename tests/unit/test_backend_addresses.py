"""How the backends read a design's ``ip/prefix`` fields: one parser for the lab and KVM alike."""

from vnetbench.backends.addresses import interface_address
from vnetbench_local.desired_base import BuilderBase


def test_an_address_with_its_prefix_is_written_canonically():
    reasons: list[str] = []
    assert interface_address("10.0.0.5/24", "vNIC web01/eth0 ip", reasons) == "10.0.0.5/24"
    assert interface_address("10.0.0.5/255.255.255.0", "vNIC web01/eth0 ip", reasons) == "10.0.0.5/24"
    assert reasons == []


def test_no_address_is_no_reason():
    reasons: list[str] = []
    assert interface_address(None, "x", reasons) is None
    assert interface_address("", "x", reasons) is None
    assert reasons == []


def test_a_wrong_address_names_the_field_and_the_fix():
    for text in ("10.0.0.5", "10.0.0.300/24", "web01", "10.0.0.5/40"):
        reasons: list[str] = []
        assert interface_address(text, "vNIC web01/eth0 ip", reasons) is None
        assert reasons == [f"vNIC web01/eth0 ip: {text!r} is not an address/prefix (write it like 10.0.0.5/24 "
                           "or 2001:db8:1::5/64)"]


def test_ipv6_is_written_in_its_short_form_and_refused_where_a_backend_takes_ipv4_only():
    reasons: list[str] = []
    assert interface_address("2001:0db8:30:0::11/64", "x", reasons) == "2001:db8:30::11/64"
    assert interface_address("2001:db8:30::11/64", "vNIC web01/eth0 ip", reasons, only=4) is None
    assert reasons == ["vNIC web01/eth0 ip: '2001:db8:30::11/64' is an IPv6 address, and this backend configures "
                       "IPv4 only (give the interface an IPv4 ip, with 2001:db8:30::11/64 in addresses)"]


def test_the_lab_reads_addresses_through_it():
    reasons: list[str] = []
    builder = BuilderBase.__new__(BuilderBase)
    builder.reasons = reasons
    part = type("Part", (), {"ip": "2001:0db8:30::11/64", "addresses": ["10.0.0.5/255.255.255.0", "10.0.0.300/24"]})
    assert builder._addrs(part, "vNIC web01/eth0 ip") == ["2001:db8:30::11/64", "10.0.0.5/24"]
    assert reasons == ["vNIC web01/eth0 ip: '10.0.0.300/24' is not an address/prefix (write it like 10.0.0.5/24 "
                       "or 2001:db8:1::5/64)"]
