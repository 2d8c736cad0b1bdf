"""Trust on first use for self-signed vCenter/ESXi certificates, pinned by SHA-256 fingerprint.

Most vCenters and every fresh ESXi host serve a self-signed certificate, so "verify against the system CAs"
alone would lock most users out, and "verify nothing" would hand their password to anyone in between. The
user trusts one fingerprint explicitly (it is shown to them); it is pinned in a small JSON file, and a later
certificate change is refused with a warning until the user removes the pin on purpose.

The pin is enforced on the connections that carry the API calls, not in a separate probe: ``PinnedContext``
checks the peer's fingerprint on every TLS handshake, before a byte of a request (or the password) is sent.
A proxy that shows the pinned certificate to a first probe and another one afterwards is refused.
"""

from __future__ import annotations

import hashlib
import os
import ssl
from pathlib import Path
from typing import Any

from vnetbench import dirs
from vnetbench.backends.contract import BadSetting

from .localfile import read_json, write_json


def normalize(fingerprint: str) -> str:
    """``AB:CD:..`` or ``abcd..`` -> ``abcd..`` (64 lowercase hex digits); ``ValueError`` otherwise."""
    text = fingerprint.replace(":", "").replace(" ", "").strip().lower()
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(f"{fingerprint!r} is not a SHA-256 fingerprint (64 hex digits, colons allowed)")
    return text


def pretty(fingerprint: str) -> str:
    """``abcd..`` -> ``AB:CD:..``, the way vSphere and browsers show fingerprints."""
    text = normalize(fingerprint).upper()
    return ":".join(text[i:i + 2] for i in range(0, len(text), 2))


def fingerprint_of(der: bytes) -> str:
    return hashlib.sha256(der).hexdigest()


class PinMismatch(ssl.SSLError):
    """The peer showed a certificate other than the pinned one; the connection was closed unused."""

    def __init__(self, seen: str) -> None:
        super().__init__(f"the server's certificate (SHA-256 {seen}) is not the pinned one")
        self.seen = seen


class PinnedContext(ssl.SSLContext):
    """A client context that trusts exactly one certificate, by SHA-256 fingerprint, on every handshake.

    Chain and host name are not checked (the certificate is self-signed); the fingerprint is, each time
    ``http.client`` (and so pyvmomi) opens a connection with it.
    """

    pin: str

    def __new__(cls, pin: str) -> PinnedContext:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self, pin: str) -> None:
        self.check_hostname = False
        self.verify_mode = ssl.CERT_NONE
        self.pin = normalize(pin)

    def wrap_socket(self, sock: Any, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        kwargs["do_handshake_on_connect"] = True
        tls = super().wrap_socket(sock, *args, **kwargs)
        seen = fingerprint_of(tls.getpeercert(binary_form=True) or b"")
        if seen != self.pin:
            tls.close()
            raise PinMismatch(seen)
        return tls


def default_pin_file() -> Path:
    return dirs.config_dir() / "vsphere-pins.json"


class PinStore:
    """``server -> fingerprint`` pairs in a JSON file (written atomically, readable only by the user)."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path else default_pin_file()

    def _read(self) -> dict[str, str]:
        fix = "repair it, or delete it and trust the server's fingerprint again"
        data = read_json(self.path, "certificate pin file", fix)
        if data is None:
            return {}
        if isinstance(data, dict):
            try:
                return {str(k): normalize(str(v)) for k, v in data.items()}
            except ValueError:
                pass
        raise BadSetting(f"the certificate pin file {self.path} does not hold server: fingerprint pairs", fix)

    def get(self, server: str) -> str | None:
        return self._read().get(server)

    def pin(self, server: str, fingerprint: str) -> None:
        pins = self._read()
        pins[server] = normalize(fingerprint)
        write_json(self.path, pins)
