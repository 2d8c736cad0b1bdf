"""Connecting to a backend that needs settings (a server, a user, a password), for any backend plugin.

The dialog is built from the backend's ``settings_fields``, so the GUI never knows a plugin. Where secrets
go is the point of this module: a password typed here lives in memory for this connection only, or, when
"Remember in the OS keyring" is ticked, in the keyring under the backend's ``keyring_service``; it never
reaches the design, the GUI's QSettings (recent servers are kept there without secrets) or a message.
A certificate no authority vouches for is shown with its SHA-256 fingerprint and trusted only on an
explicit yes (the backend then pins it); a pinned certificate that changed is refused with a warning and
no way to trust it from here. Connecting runs off the GUI thread with a Cancel button.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import keyring
from keyring.errors import KeyringError
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit,
                               QMessageBox, QProgressBar, QPushButton, QVBoxLayout, QWidget)

from ..backends import (TRUST_SETTING, Backend, BackendError, Cancelled, CancelToken, CertificateChanged,
                        ProgressFn, SettingField, SettingKind, UntrustedCertificate, Unsupported)
from .files import settings as gui_settings
from .plain import plain
from .worker import Task

RECENT_LIMIT = 8


def describe_error(error: BaseException) -> str:
    """What the user reads when a backend call fails: the message and the fix, never a traceback."""
    if isinstance(error, Unsupported):
        return ("This backend cannot build the design:\n• " + "\n• ".join(error.reasons)
                + f"\n{error.hint.capitalize()}.")
    if isinstance(error, BackendError):
        return error.message + (f"\nWhat to do: {error.hint}." if error.hint else "")
    return f"Unexpected {type(error).__name__}: {error}"


def public_fields(cls: type[Backend]) -> list[SettingField]:
    """The fields that may be written down (QSettings, titles): all but the secrets."""
    return [f for f in cls.settings_fields if f.kind is not SettingKind.SECRET]


def _recent_key(cls: type[Backend]) -> str:
    return f"connect/{cls.name}/recent"


def recent_servers(cls: type[Backend]) -> list[dict[str, Any]]:
    """Earlier connections of this backend, newest first (their non-secret settings)."""
    try:
        items = json.loads(str(gui_settings().value(_recent_key(cls), "[]")))
    except ValueError:
        return []
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def remember_server(cls: type[Backend], values: Mapping[str, Any]) -> None:
    """Put a connection first in the recent list, keeping only the backend's non-secret fields."""
    entry = {f.name: values[f.name] for f in public_fields(cls) if f.name in values}
    items = [entry] + [item for item in recent_servers(cls) if item != entry]
    store = gui_settings()
    store.setValue(_recent_key(cls), json.dumps(items[:RECENT_LIMIT]))
    store.sync()


def describe_target(cls: type[Backend], values: Mapping[str, Any]) -> str:
    """``admin @ https://vc/sdk``: who is connected where, from the user and address fields."""
    by_kind = {f.kind: str(values.get(f.name) or "") for f in cls.settings_fields}
    user, url = by_kind.get(SettingKind.USER, ""), by_kind.get(SettingKind.URL, "")
    return f"{user} @ {url}" if user and url else (url or user or cls.title)


class ConnectDialog(QDialog):
    """Ask for a backend's settings and connect; ``connected`` carries the connected ``Backend``.

    Open it with ``open()`` (the caller continues from ``connected``) or ``exec()`` (then read ``backend``).
    ``extra`` settings (advanced ones the fields do not cover) go to the backend as given.
    """

    connected = Signal(object)

    def __init__(self, backend_cls: type[Backend], parent: QWidget | None = None,
                 extra: Mapping[str, Any] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ConnectDialog")
        self.setWindowTitle(f"Connect to {backend_cls.title}")
        self.backend_cls = backend_cls
        self.extra = dict(extra or {})
        self.backend: Backend | None = None
        self.task: Task | None = None
        self.trusted: str | None = None  # the fingerprint the user said yes to, for this address
        self.fields: dict[str, QWidget] = {}
        self.remember = QCheckBox("Remember in the OS keyring")
        self.remember.setToolTip(f"Keep the password in the OS keyring (service {backend_cls.keyring_service!r}) "
                                 "so the next connection and the command line need not ask for it")

        form = QFormLayout()
        self.recent = QComboBox()
        self.recent.addItem("(new connection)", None)
        for item in recent_servers(backend_cls):
            self.recent.addItem(describe_target(backend_cls, item), item)
        self.recent.activated.connect(lambda index: self.fill(self.recent.itemData(index) or {}))
        if self.recent.count() > 1:
            form.addRow("Recent", self.recent)
        for spec in backend_cls.settings_fields:
            widget = self._field_widget(spec)
            self.fields[spec.name] = widget
            form.addRow(spec.label + (" *" if spec.required else ""), widget)
            if spec.kind is SettingKind.SECRET and backend_cls.keyring_service:
                form.addRow("", self.remember)
        self.status = plain(QLabel(" "))
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.buttons = QDialogButtonBox()
        self.connect_button = QPushButton("Connect")
        self.connect_button.setDefault(True)
        self.buttons.addButton(self.connect_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.connect_button.clicked.connect(self.start_connect)
        self.cancel_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.resize(480, self.sizeHint().height())
        if self.recent.count() > 1:
            self.recent.setCurrentIndex(1)
            self.fill(self.recent.itemData(1))

    def _field_widget(self, spec: SettingField) -> QWidget:
        if spec.kind is SettingKind.BOOL:
            box = QCheckBox()
            box.setChecked(bool(spec.default))
            box.setToolTip(spec.help)
            box.toggled.connect(self._edited)
            return box
        edit = QLineEdit(str(spec.default or ""))
        edit.setToolTip(spec.help)
        edit.setPlaceholderText(spec.help)
        if spec.kind is SettingKind.SECRET:
            edit.setEchoMode(QLineEdit.EchoMode.Password)
            if self.backend_cls.keyring_service:
                edit.setPlaceholderText("leave empty to use the one in the OS keyring")
        edit.textEdited.connect(self._edited)
        return edit

    def _edited(self, *_: object) -> None:
        self.trusted = None  # a trusted fingerprint belongs to the address it was shown for

    def fill(self, values: Mapping[str, Any]) -> None:
        """Put ``values`` (a recent connection) into the non-secret fields."""
        for spec in public_fields(self.backend_cls):
            widget = self.fields[spec.name]
            value = values.get(spec.name, spec.default)
            if isinstance(widget, QCheckBox):
                widget.setChecked(bool(value))
            elif isinstance(widget, QLineEdit):
                widget.setText(str(value or ""))
        self._edited()

    def values(self) -> dict[str, Any]:
        """What the fields hold; a secret only when one was typed (else the backend reads the keyring)."""
        out: dict[str, Any] = {}
        for spec in self.backend_cls.settings_fields:
            widget = self.fields[spec.name]
            if isinstance(widget, QCheckBox):
                out[spec.name] = widget.isChecked()
            elif isinstance(widget, QLineEdit):
                text = widget.text() if spec.kind is SettingKind.SECRET else widget.text().strip()
                if text or spec.kind is not SettingKind.SECRET:
                    out[spec.name] = text
        return out

    # --- connecting ---------------------------------------------------------------------------------

    def start_connect(self) -> None:
        if self.task is not None:
            return
        values = self.values()
        for spec in self.backend_cls.settings_fields:
            if spec.required and not values.get(spec.name):
                self.status.setText(f"{spec.label} is empty: {spec.help or 'fill it in'}.")
                self.fields[spec.name].setFocus()
                return
        secrets = [f.name for f in self.backend_cls.settings_fields if f.kind is SettingKind.SECRET]
        if self.remember.isChecked() and any(values.get(name) for name in secrets) and not self._store_secret(values):
            return
        settings = {**self.extra, **values}
        if self.trusted:
            settings[TRUST_SETTING] = self.trusted
        cls = self.backend_cls
        task = Task(lambda progress, cancel: self._open(cls, settings, progress, cancel))
        task.progress.connect(lambda _d, _t, message: self.status.setText(message))
        task.succeeded.connect(lambda backend: self._connected(task, backend, values))
        task.failed.connect(self._failed)
        task.finished.connect(self._finished)
        self.task = task
        self._set_busy(True)
        task.start()

    def _store_secret(self, values: dict[str, Any]) -> bool:
        """Keep the typed secret in the OS keyring; False (and why) when the keyring refuses."""
        cls = self.backend_cls
        try:
            account = cls.secret_account(values)
            for spec in cls.settings_fields:
                if spec.kind is SettingKind.SECRET and values.get(spec.name):
                    keyring.set_password(cls.keyring_service, account, str(values[spec.name]))
        except BackendError as exc:
            self.status.setText(describe_error(exc))
            return False
        except KeyringError as exc:
            self.status.setText(f"The OS keyring refused the password ({type(exc).__name__}).\n"
                                "What to do: untick 'Remember' to use it for this connection only, "
                                "or set up a keyring (Secret Service, KWallet).")
            return False
        return True

    @staticmethod
    def _open(cls: type[Backend], settings: dict[str, Any], progress: ProgressFn, cancel: CancelToken) -> Backend:
        """On the worker thread: a connected backend, or the error that stopped it."""
        progress(0, 1, f"Connecting to {describe_target(cls, settings)}…")
        backend = cls(settings)
        backend.connect()
        if cancel.cancelled:  # the user gave up while the server was answering
            backend.close()
            raise Cancelled()
        return backend

    def _connected(self, task: Task, backend: Backend, values: dict[str, Any]) -> None:
        if task.token.cancelled:  # arrived after Cancel: nobody wants it
            backend.close()
            return
        self.backend = backend
        remember_server(self.backend_cls, values)
        self.status.setText(f"Connected to {describe_target(self.backend_cls, values)}.")
        self.connected.emit(backend)
        self.accept()

    def _failed(self, error: BaseException) -> None:
        if isinstance(error, Cancelled):
            return
        if isinstance(error, UntrustedCertificate):
            self.status.setText(describe_error(error))
            if self.ask_trust(error):
                self.trusted = error.fingerprint
                self.task = None
                self.start_connect()
            else:
                self.status.setText(f"Not connected: the certificate of {error.server} was not trusted.")
            return
        if isinstance(error, CertificateChanged):
            self.status.setText(describe_error(error))
            self.refuse_changed(error)
            return
        self.status.setText(describe_error(error))

    def _finished(self) -> None:
        if self.task is not None and not self.task.running:
            self.task = None
        self._set_busy(self.task is not None)

    def _set_busy(self, busy: bool) -> None:
        self.progress.setVisible(busy)
        self.connect_button.setEnabled(not busy)
        for widget in [*self.fields.values(), self.recent, self.remember]:
            widget.setEnabled(not busy)

    def reject(self) -> None:
        """Cancel: a connection still being made is dropped when it arrives."""
        if self.task is not None:
            self.task.cancel()
            self.task = None
        super().reject()

    # --- questions (tests answer them through the real message boxes) ---------------------------------

    def trust_question(self, error: UntrustedCertificate) -> str:
        return (f"The certificate of {error.server} is not signed by an authority this computer trusts "
                "(usual for a vCenter or ESXi host with its own self-signed certificate).\n\n"
                f"SHA-256 fingerprint:\n{error.fingerprint}\n\n"
                "Compare it with the fingerprint the server shows (its console or web client). "
                "Trust this certificate? It will be remembered, and a later change refused.")

    def ask_trust(self, error: UntrustedCertificate) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "Trust this certificate?", self.trust_question(error),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self)
        box.setObjectName("TrustCertificateBox")
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return box.exec() == QMessageBox.StandardButton.Yes

    def refuse_changed(self, error: CertificateChanged) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "Certificate changed: not connecting", describe_error(error),
                          QMessageBox.StandardButton.Ok, self)
        box.setObjectName("CertificateChangedBox")
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.exec()
