"""Trust on first use for self-signed vCenter/ESXi certificates, pinned by SHA-256 fingerprint.

Most vCenters and every fresh ESXi host serve a self-signed certificate, so "verify against the system CAs"
alone would lock most users out, and "verify nothing" would hand their password to anyone in between. The
user trusts one fingerprint explicitly (it is shown to them); it is pinned in a small JSON file, and a later
certificate change is refused with a warning until the user removes the pin on purpose.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


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


def default_pin_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "vnetbench" / "vsphere-pins.json"


class PinStore:
    """``server -> fingerprint`` pairs in a JSON file (written atomically, readable only by the user)."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        self.path = Path(path) if path else default_pin_file()

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise ValueError(f"the certificate pin file {self.path} cannot be read: {exc}") from None
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, server: str) -> str | None:
        return self._read().get(server)

    def pin(self, server: str, fingerprint: str) -> None:
        pins = self._read()
        pins[server] = normalize(fingerprint)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(pins, fh, indent=2, sort_keys=True)
        os.replace(tmp, self.path)
