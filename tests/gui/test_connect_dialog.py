"""The connect dialog: fields from the backend's declaration, secrets only in the keyring, certificates
trusted only on an explicit yes and a changed one refused, errors as message and hint; against real vcsim."""

from __future__ import annotations

import json
import socket

import keyring
import keyring.backends.fail
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLineEdit, QMessageBox

from connect_helpers import answer_box, fill_dialog
from vcsim_tools import sim_fingerprint
from vnetbench.backends import Capabilities, SettingField, SettingKind, discover
from vnetbench.gui.connect import ConnectDialog, recent_servers
from vnetbench.model import SwitchKind
from vnetbench_vsphere import VSphereBackend
from vnetbench_vsphere.connection import KEYRING_SERVICE
from vnetbench_vsphere.trust import PinStore, pretty

from fake_backend import FakeBackend

pytestmark = pytest.mark.gui
Yes, No, Ok = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No, QMessageBox.StandardButton.Ok


class FieldsFake(FakeBackend):
    name = "fields-fake"
    capabilities = Capabilities(switch_kinds=frozenset(SwitchKind), needs_credentials=True)
    settings_fields = (
        SettingField("url", "Address", SettingKind.URL, "https://lab.example", "where it runs", required=True),
        SettingField("token", "API token", SettingKind.SECRET, help="from the web console"),
        SettingField("verbose", "Verbose", SettingKind.BOOL, True),
        SettingField("zone", "Zone", SettingKind.TEXT, "", "optional zone"),
    )
    keyring_service = "vnetbench-fields-fake"


def _dialog(qtbot, cls=VSphereBackend, **extra):
    dialog = ConnectDialog(cls, extra=extra or None)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _connect(qtbot, dialog, timeout=30000):
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.task is None, timeout=timeout)


def test_fields_come_from_the_declaration(qtbot, gui_store):
    by_name = {p.name: p.backend for p in discover() if p.ok}
    assert by_name["local"].settings_fields == (), "the local lab needs no settings"
    assert [f.name for f in by_name["vsphere"].settings_fields] == ["url", "user", "password", "esxi_ssh_user", "esxi_ssh_identity"]

    dialog = _dialog(qtbot, FieldsFake)
    assert list(dialog.fields) == ["url", "token", "verbose", "zone"]
    assert isinstance(dialog.fields["verbose"], QCheckBox) and dialog.fields["verbose"].isChecked()
    token = dialog.fields["token"]
    assert isinstance(token, QLineEdit) and token.echoMode() == QLineEdit.EchoMode.Password
    assert dialog.fields["url"].text() == "https://lab.example" and dialog.fields["zone"].placeholderText()
    assert dialog.values() == {"url": "https://lab.example", "verbose": True, "zone": ""}, "no secret typed"
    dialog.fields["url"].setText("")
    _connect(qtbot, dialog)
    assert dialog.status.text().startswith("Address is empty") and dialog.backend is None

    dialog.fields["url"].setText("https://lab.example")
    token.setText("s3cret-token")
    dialog.remember.setChecked(False)
    _connect(qtbot, dialog)
    assert dialog.result() == ConnectDialog.DialogCode.Accepted
    assert dialog.backend.connected and dialog.backend.settings["token"] == "s3cret-token"
    assert recent_servers(FieldsFake) == [{"url": "https://lab.example", "verbose": True, "zone": ""}]
    assert "s3cret-token" not in gui_store["settings"].read_text(), "secrets never reach QSettings"


def test_untrusted_certificate_is_shown_trusted_on_yes_pinned_and_the_password_kept_in_the_keyring(
        qtbot, vcsim, memory_keyring, gui_store):
    fingerprint = pretty(sim_fingerprint(vcsim))
    dialog = _dialog(qtbot)
    fill_dialog(dialog, vcsim.url, vcsim.user, vcsim.password, remember=True)

    seen = answer_box(dialog, "TrustCertificateBox", No)
    _connect(qtbot, dialog)
    assert fingerprint in seen["text"] and seen["buttons"] == {Yes, No}
    assert dialog.backend is None and "not trusted" in dialog.status.text()
    assert not gui_store["pins"].exists(), "nothing is pinned without a yes"

    seen = answer_box(dialog, "TrustCertificateBox", Yes)
    _connect(qtbot, dialog)
    qtbot.waitUntil(lambda: dialog.backend is not None, timeout=30000)
    assert fingerprint in seen["text"]
    assert dialog.backend.conn.is_vcenter
    assert json.loads(gui_store["pins"].read_text()) == {vcsim.hostport: sim_fingerprint(vcsim)}
    account = f"{vcsim.user}@{vcsim.hostport}"
    assert memory_keyring.get_password(KEYRING_SERVICE, account) == vcsim.password
    settings_text = gui_store["settings"].read_text()
    assert vcsim.url in settings_text and vcsim.password not in settings_text
    dialog.backend.close()

    again = _dialog(qtbot)  # recent server prefilled, the password from the keyring, the pin: no question
    assert again.fields["url"].text() == vcsim.url and again.fields["user"].text() == vcsim.user
    assert again.fields["password"].text() == ""
    guard = answer_box(again, "no question expected", Ok)
    _connect(qtbot, again)
    assert guard["unexpected"] == []
    assert again.backend is not None and again.backend.conn.is_vcenter, again.status.text()
    assert "password" not in again.backend.settings
    again.backend.close()


def test_a_changed_certificate_is_refused_without_a_way_to_trust_it(qtbot, vcsim, memory_keyring, gui_store):
    PinStore(gui_store["pins"]).pin(vcsim.hostport, "ab" * 32)
    dialog = _dialog(qtbot)
    fill_dialog(dialog, vcsim.url, vcsim.user, vcsim.password)
    seen = answer_box(dialog, "CertificateChangedBox", Ok)
    _connect(qtbot, dialog)
    assert seen["buttons"] == {Ok} and seen["icon"] == QMessageBox.Icon.Warning
    assert "WARNING" in seen["text"] and "changed" in seen["text"] and pretty("ab" * 32) in seen["text"]
    assert pretty(sim_fingerprint(vcsim)) in seen["text"]
    assert dialog.backend is None and dialog.isVisible()
    assert PinStore(gui_store["pins"]).get(vcsim.hostport) == "ab" * 32, "the pin stays as it was"


def test_errors_are_a_message_and_a_hint(qtbot, vcsim, memory_keyring, gui_store):
    fingerprint = sim_fingerprint(vcsim)
    PinStore(gui_store["pins"]).pin(vcsim.hostport, fingerprint)
    dialog = _dialog(qtbot)
    guard = answer_box(dialog, "no question expected", Ok)
    fill_dialog(dialog, vcsim.url, vcsim.user, "wrong-" + vcsim.password)
    _connect(qtbot, dialog)
    assert guard["unexpected"] == [], "the pinned certificate needs no question"
    text = dialog.status.text()
    assert "wrong user name or password" in text and "What to do:" in text and vcsim.password not in text

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    fill_dialog(dialog, f"https://127.0.0.1:{port}/sdk", vcsim.user, vcsim.password)
    _connect(qtbot, dialog)
    assert "refused the connection" in dialog.status.text() and "What to do:" in dialog.status.text()

    fill_dialog(dialog, "https://no-such-vcenter.invalid/sdk", vcsim.user, vcsim.password)
    _connect(qtbot, dialog)
    assert "cannot find the host" in dialog.status.text()
    assert dialog.backend is None
    assert not gui_store["settings"].exists(), "failed connections are not remembered"


def test_a_typed_password_works_without_any_keyring(qtbot, vcsim, gui_store):
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())  # a desktop with no keyring service at all
    try:
        PinStore(gui_store["pins"]).pin(vcsim.hostport, sim_fingerprint(vcsim))
        dialog = _dialog(qtbot)
        fill_dialog(dialog, vcsim.url, vcsim.user)
        _connect(qtbot, dialog)
        assert "keyring cannot be read" in dialog.status.text() and "type the password" in dialog.status.text()

        fill_dialog(dialog, vcsim.url, vcsim.user, vcsim.password, remember=True)
        _connect(qtbot, dialog)
        assert "keyring refused" in dialog.status.text() and dialog.backend is None

        dialog.remember.setChecked(False)
        _connect(qtbot, dialog)
        assert dialog.backend is not None and dialog.backend.conn.is_vcenter, dialog.status.text()
        dialog.backend.close()
        assert vcsim.password not in gui_store["settings"].read_text()
    finally:
        keyring.set_keyring(previous)


def test_cancel_while_the_server_does_not_answer(qtbot, memory_keyring, gui_store):
    with socket.socket() as silent:  # accepts the TCP connection, never speaks TLS
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        dialog = _dialog(qtbot, timeout=3)
        fill_dialog(dialog, f"https://127.0.0.1:{silent.getsockname()[1]}/sdk", "u", "p")
        qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
        task = dialog.task
        assert task is not None and task.running and dialog.progress.isVisible()
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
        assert dialog.result() == ConnectDialog.DialogCode.Rejected and not dialog.isVisible()
        assert task.token.cancelled
        qtbot.waitUntil(lambda: not task.running, timeout=15000)
        assert dialog.backend is None
