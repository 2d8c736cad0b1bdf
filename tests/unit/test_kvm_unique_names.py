"""libvirt names domains and networks after the design's VMs and switches, one namespace per libvirtd: two
parts with one name would silently overwrite each other's plan, so the KVM backend refuses them by name."""

from __future__ import annotations

from vnetbench import resources_dir
from vnetbench.model import load

EXAMPLE = resources_dir() / "examples" / "kvm-ovs-private-vlans.vnet.yaml"


def _reasons(design) -> list[str]:
    from vnetbench_kvm.desired import Boot, desired

    return desired(design, {h.id: Boot("/k", "/i") for h in design.hosts}).reasons


def test_the_example_has_unique_names_and_plans():
    assert _reasons(load(EXAMPLE)) == []


def test_two_switches_with_one_name_are_refused_by_that_name():
    design = load(EXAMPLE)
    first, second = design.switches[:2]
    second.name = first.name
    reasons = _reasons(design)
    assert [r for r in reasons if "two switches" in r] == [
        f"two switches are called {first.name!r}; each becomes a libvirt network named after it, so give them "
        "different names (e.g. with the host's name)"]


def test_two_vms_with_one_name_are_refused_by_that_name():
    design = load(EXAMPLE)
    design.vms[1].name = design.vms[0].name
    assert f"two VMs are called {design.vms[0].name!r}; libvirt needs unique domain names" in _reasons(design)
