"""The pinned certificate is enforced on the connections that carry the API calls, behind a swapping proxy."""

from __future__ import annotations

import pytest
from vnetbench.backends.contract import CertificateChanged
from vnetbench_vsphere import VSphereBackend
from vnetbench_vsphere.connection import KEYRING_SERVICE
from vnetbench_vsphere.trust import pretty

from tls_proxy import SwappingProxy
from vsphere_designs import lab_design

pytestmark = pytest.mark.slow


@pytest.fixture
def proxy(vcsim, tmp_path):
    # The first look at the certificate takes two handshakes (system CAs, then without), both shown A.
    proxy = SwappingProxy(tmp_path, ("127.0.0.1", vcsim.port), first_a=2)
    yield proxy
    proxy.close()


def through(proxy, vcsim, ring, tmp_path) -> VSphereBackend:
    """A backend that reaches vcsim through the proxy and trusts certificate A."""
    ring.set_password(KEYRING_SERVICE, f"{vcsim.user}@{proxy.hostport}", vcsim.password)
    return VSphereBackend({"url": proxy.url, "user": vcsim.user, "pin_file": str(tmp_path / "pins.json"),
                           "ledger_file": str(tmp_path / "ledger.json"), "trust_fingerprint": proxy.fingerprints[0]})


def vm_names(vcsim):
    return set(vcsim.govc("find", "/", "-type", "m").split())


@pytest.mark.parametrize("first_a", [2, 3], ids=["swapped-at-the-first-api-call", "swapped-at-the-login"])
def test_certificate_a_to_the_probe_then_b_is_refused_before_the_password_is_sent(proxy, vcsim, memory_keyring,
                                                                                    tmp_path, first_a):
    """The probe takes two connections; pyVmomi's version check takes a third, and the login a fourth."""
    proxy.first_a = first_a
    before = vm_names(vcsim)
    be = through(proxy, vcsim, memory_keyring, tmp_path)
    with pytest.raises(CertificateChanged) as err:
        be.connect()
        be.apply(be.plan(lab_design()))
    message = str(err.value)
    assert pretty(proxy.fingerprints[0]) in message and pretty(proxy.fingerprints[1]) in message, message
    assert "changed since you trusted it" in message and "('" not in message, message
    assert proxy.connections > first_a, "the probe saw A, the API connection B"
    assert proxy.sent["B"] == 0, "not one byte (no login, no password) went over the connection showing B"
    assert vm_names(vcsim) == before


def test_certificate_swapped_mid_session_stops_the_apply_and_sends_nothing(proxy, vcsim, memory_keyring, tmp_path):
    proxy.first_a = 1000
    be = through(proxy, vcsim, memory_keyring, tmp_path)
    be.connect()
    design = lab_design()
    plan = be.plan(design)
    before = vm_names(vcsim)
    proxy.swap()  # from now on B
    be.conn.si._stub.DropConnections()  # as after an idle timeout or a network blip: the next call reconnects
    results = be.apply(plan)
    assert len(results) == len(plan.changes) and not any(r.ok for r in results)
    assert all(r.lost for r in results)
    assert all("certificate of" in r.error and "changed" in r.error for r in results), results[0].error
    assert proxy.sent["B"] == 0
    assert vm_names(vcsim) == before and not any(n.endswith("vnb-test-a") for n in vm_names(vcsim))
    with pytest.raises(CertificateChanged):
        be.plan(design)
