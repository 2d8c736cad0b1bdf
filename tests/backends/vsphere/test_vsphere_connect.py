"""Connecting: keyring passwords, certificate pinning, and one clear sentence for each way it fails."""

from __future__ import annotations

import json
import logging
import socket

import pytest
from vnetbench.backends.contract import BackendError
from vnetbench_vsphere import VSphereBackend
from vnetbench_vsphere.connection import KEYRING_SERVICE, UntrustedCertificate, parse_url
from vnetbench_vsphere.trust import PinStore, pretty

from vcsim_tools import make_backend
from vsphere_designs import lab_design


def test_self_signed_certificate_is_shown_then_trusted_and_pinned(vcsim, memory_keyring, tmp_path):
    be = make_backend(vcsim, memory_keyring, tmp_path)
    fingerprint = be.settings.pop("trust_fingerprint")
    with pytest.raises(UntrustedCertificate) as err:
        be.connect()
    assert err.value.fingerprint == pretty(fingerprint) and pretty(fingerprint) in str(err.value)
    assert "--trust-fingerprint" in err.value.hint
    assert not (tmp_path / "pins.json").exists(), "nothing is pinned before the user trusts it"

    be.settings["trust_fingerprint"] = pretty(fingerprint)  # the colon form vSphere shows works too
    be.connect()
    assert be.conn.is_vcenter
    be.close()
    assert json.loads((tmp_path / "pins.json").read_text()) == {vcsim.hostport: fingerprint}

    again = VSphereBackend({k: v for k, v in be.settings.items() if k != "trust_fingerprint"})
    again.connect()  # pinned: no fingerprint needed any more
    again.close()


def test_changed_certificate_is_refused_with_a_warning(vcsim, memory_keyring, tmp_path):
    PinStore(tmp_path / "pins.json").pin(vcsim.hostport, "ab" * 32)
    be = make_backend(vcsim, memory_keyring, tmp_path)
    with pytest.raises(BackendError) as err:
        be.connect()
    text = str(err.value)
    assert text.startswith("WARNING") and "changed" in text and pretty("ab" * 32) in text
    assert str(tmp_path / "pins.json") in text, "the message says how to accept a new certificate on purpose"
    assert be.conn is None


def test_a_different_fingerprint_than_the_server_has_is_refused(vcsim, memory_keyring, tmp_path):
    be = make_backend(vcsim, memory_keyring, tmp_path, trust_fingerprint="cd" * 32)
    with pytest.raises(BackendError, match="not the one you trusted"):
        be.connect()
    with pytest.raises(BackendError, match="not a SHA-256 fingerprint"):
        make_backend(vcsim, memory_keyring, tmp_path, trust_fingerprint="12:34").connect()


def test_bad_credentials_and_missing_password(vcsim, memory_keyring, tmp_path):
    be = make_backend(vcsim, memory_keyring, tmp_path)
    memory_keyring.set_password(KEYRING_SERVICE, f"{vcsim.user}@{vcsim.hostport}", "wrong-" + vcsim.password)
    with pytest.raises(BackendError) as err:
        be.connect()
    assert "wrong user name or password" in str(err.value) and vcsim.password not in str(err.value)
    memory_keyring.delete_password(KEYRING_SERVICE, f"{vcsim.user}@{vcsim.hostport}")
    with pytest.raises(BackendError, match=f"no password for {vcsim.user}@{vcsim.hostport} in the OS keyring"):
        be.connect()


def test_wrong_address_and_refused_connection(memory_keyring, tmp_path):
    with pytest.raises(BackendError, match="cannot find the host"):
        VSphereBackend({"url": "https://no-such-vcenter.invalid/sdk", "user": "u"}).connect()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(BackendError, match="refused the connection"):
        VSphereBackend({"url": f"https://127.0.0.1:{port}/sdk", "user": "u"}).connect()
    with pytest.raises(BackendError, match="does not use https"):
        parse_url("http://vc.example/sdk")
    with pytest.raises(BackendError, match="password lives in the OS keyring"):
        parse_url("https://root:secret@vc.example/sdk")


def test_expired_session_logs_in_again_once(backend):
    backend.conn.content.sessionManager.Logout()  # what an idle timeout or a vCenter restart does
    assert len(backend.import_design().hosts) == 4
    backend.conn.content.sessionManager.Logout()
    results = backend.apply(backend.plan(lab_design()))
    assert results and all(r.ok for r in results)


def test_password_never_reaches_logs_or_errors(vcsim, memory_keyring, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    be = make_backend(vcsim, memory_keyring, tmp_path)
    be.connect()
    design = lab_design()
    design.switches[0].portgroups[1].vlan = 11
    texts = [r.error or "" for r in be.apply(be.plan(design))]
    be.import_design()
    be.conn.content.sessionManager.Logout()
    be.status(design)
    texts += [r.error or "" for r in be.teardown(design.id)]
    be.close()
    memory_keyring.set_password(KEYRING_SERVICE, f"{vcsim.user}@{vcsim.hostport}", vcsim.password + "x")
    with pytest.raises(BackendError) as err:
        be.connect()
    texts.append(str(err.value))
    assert "connected to" in caplog.text, "the test did capture the backend's log"
    assert vcsim.password not in caplog.text
    assert not any(vcsim.password in t for t in texts)
