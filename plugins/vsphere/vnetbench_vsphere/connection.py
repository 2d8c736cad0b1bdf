"""One authenticated pyvmomi session to a vCenter or ESXi host.

Why this module exists: connecting is where users get stuck (wrong address, self-signed certificates,
passwords), so every failure becomes one ``BackendError`` sentence with a fix. The password is the one typed
for this session (setting ``password``, held in memory only: the GUI's dialog, the CLI's prompt or
``VNETBENCH_PASSWORD``) or else read from the OS keyring at login; it is never stored, logged or put in a
message. A self-signed certificate is trusted only by its pinned fingerprint, checked on every connection
(``trust.PinnedContext``).
"""

from __future__ import annotations

import http.client
import logging
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import keyring
from keyring.errors import KeyringError
from pyVim.connect import Disconnect, SmartConnect
from pyVmomi import vim
from vnetbench.backends import contract
from vnetbench.backends.contract import TRUST_SETTING, BackendError, BadSetting, CertificateChanged

from .trust import PinMismatch, PinnedContext, PinStore, fingerprint_of, normalize, pretty

log = logging.getLogger("vnetbench.vsphere")

KEYRING_SERVICE = "vnetbench-vsphere"
T = TypeVar("T")


@dataclass(frozen=True)
class Server:
    host: str
    port: int = 443
    path: str = "/sdk"

    @property
    def hostport(self) -> str:
        return self.host if self.port == 443 else f"{self.host}:{self.port}"


def parse_url(url: str) -> Server:
    """``https://vc.example/sdk``, ``vc.example`` or ``vc.example:8443`` -> ``Server``; ``BadSetting`` otherwise."""
    text = (url or "").strip()
    if not text:
        raise BadSetting("no vSphere address given", "pass the vCenter or ESXi address, like https://vc.example/sdk")
    if "://" not in text:
        text = "https://" + text
    parts = urlsplit(text)
    if parts.scheme != "https":
        raise BadSetting(f"{url!r} does not use https", "vSphere is reached over https://HOST/sdk")
    if parts.username or parts.password:
        raise BadSetting("the address carries a user or password",
                         "give the user with --user; the password lives in the OS keyring")
    try:
        port = parts.port or 443
    except ValueError:
        raise BadSetting(f"the port in {url!r} is not a number", "write https://HOST:PORT/sdk") from None
    if not parts.hostname:
        raise BadSetting(f"{url!r} names no host", "write https://HOST/sdk")
    path = parts.path.rstrip("/") or "/sdk"
    if path != "/sdk" or parts.query or parts.fragment:
        raise BadSetting(f"the address {url!r} does not end in /sdk, where vSphere's API lives",
                         f"write https://{parts.netloc}/sdk")
    return Server(parts.hostname, port, path)


def keyring_account(user: str, server: Server) -> str:
    """The keyring entry for a password: service ``vnetbench-vsphere``, account ``user@host[:port]``."""
    return f"{user}@{server.hostport}"


class ConnectionLost(BackendError):
    """The server went away (or stopped answering) in the middle of a session."""


def session_failure(server: Server, exc: BaseException, pinned: str | None) -> BackendError | None:
    """What a failure on an open session means to the user, or None when it is no connection problem."""
    if isinstance(exc, PinMismatch):
        return CertificateChanged(server.hostport, pretty(pinned or exc.seen), pretty(exc.seen),
                                  "nothing more was sent; find out why before you trust the new certificate")
    if isinstance(exc, OSError | http.client.HTTPException):
        return ConnectionLost(f"lost the connection to {server.hostport} ({type(exc).__name__})",
                              "apply again once the server is back")
    return None


def _pin_mismatch(exc: BaseException) -> PinMismatch | None:
    """The ``PinMismatch`` behind ``exc``, if a library wrapped one (pyVmomi turns it into a fault)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, PinMismatch):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


class UntrustedCertificate(contract.UntrustedCertificate):
    """The contract's error, for a vSphere ``Server``: ``fingerprint`` is what the user must confirm."""

    def __init__(self, server: Server, fingerprint: str) -> None:
        super().__init__(server.hostport, pretty(fingerprint),
                         "compare it with the one vCenter shows, then trust it with --trust-fingerprint FINGERPRINT")


def _socket_error(server: Server, exc: OSError) -> BackendError:
    if isinstance(exc, socket.gaierror):
        return BackendError(f"cannot find the host {server.host!r}", "check the address (a typo, or DNS)")
    if isinstance(exc, ConnectionRefusedError):
        return BackendError(f"{server.hostport} refused the connection",
                            "check the port and that vCenter/ESXi is running there")
    if isinstance(exc, TimeoutError | socket.timeout):
        return BackendError(f"{server.hostport} did not answer in time", "check the address and any firewall")
    return BackendError(f"cannot reach {server.hostport}: {exc.strerror or exc}", "check the address and network")


def probe_certificate(server: Server, timeout: float) -> tuple[bytes, bool]:
    """The server's certificate (DER) and whether the system's CAs vouch for it."""
    def handshake(context: ssl.SSLContext) -> bytes:
        with socket.create_connection((server.host, server.port), timeout=timeout) as sock:
            with context.wrap_socket(sock, server_hostname=server.host) as tls:
                der = tls.getpeercert(binary_form=True)
        if not der:
            raise BackendError(f"{server.hostport} sent no certificate", "is this a vSphere server?")
        return der

    try:
        try:
            return handshake(ssl.create_default_context()), True
        except ssl.SSLCertVerificationError:
            return handshake(_unverified_context()), False
    except ssl.SSLError as exc:
        raise BackendError(f"TLS with {server.hostport} failed: {exc.reason or exc}",
                           "is this the https port of vCenter/ESXi?") from None
    except OSError as exc:
        raise _socket_error(server, exc) from None


def _unverified_context() -> ssl.SSLContext:
    """Only for reading the certificate a server shows, before anything is sent to it."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class Connection:
    """A logged-in session; ``call`` re-logs in once when the session expired."""

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.server = parse_url(str(settings.get("url") or ""))
        self.user = str(settings.get("user") or "")
        if not self.user:
            raise BadSetting("no vSphere user given", "pass --user, like administrator@vsphere.local")
        self.trust = settings.get(TRUST_SETTING)
        self._typed_password = settings.get("password") or None  # typed in the GUI for this session only
        self.pins = PinStore(settings.get("pin_file"))
        self.timeout = float(settings.get("timeout", 20))
        self.si: Any = None
        self._content: Any = None
        self._tls: ssl.SSLContext | None = None

    # --- opening ------------------------------------------------------------------------------------

    def open(self) -> None:
        self._tls = self._tls_settings()
        self._login()

    @property
    def pinned(self) -> str | None:
        return self._tls.pin if isinstance(self._tls, PinnedContext) else None

    def _tls_settings(self) -> ssl.SSLContext:
        """System CAs when they vouch for the server, else the pinned fingerprint (checked on every handshake)."""
        der, verified = probe_certificate(self.server, self.timeout)
        if verified:
            return ssl.create_default_context()
        current = fingerprint_of(der)
        key = self.server.hostport
        pinned = self.pins.get(key)
        if pinned and pinned != current:
            raise CertificateChanged(
                key, pretty(pinned), pretty(current),
                f"if the server got a new certificate on purpose, delete the entry {key!r} from {self.pins.path} "
                "and trust the new fingerprint")
        if not pinned:
            if not self.trust:
                raise UntrustedCertificate(self.server, current)
            try:
                wanted = normalize(str(self.trust))
            except ValueError as exc:
                raise BackendError(str(exc), "copy the fingerprint shown by the first connection attempt") from None
            if wanted != current:
                raise BackendError(
                    f"the certificate of {key} has fingerprint {pretty(current)}, not the one you trusted",
                    "do not connect unless you know why; check the fingerprint on the server")
            self.pins.pin(key, current)
            log.info("pinned the certificate of %s (SHA-256 %s)", key, pretty(current))
        return PinnedContext(current)

    def _login(self) -> None:
        assert self._tls is not None
        account = keyring_account(self.user, self.server)
        try:
            password = self._typed_password or keyring.get_password(KEYRING_SERVICE, account)
        except KeyringError as exc:
            raise BackendError(f"the OS keyring cannot be read ({type(exc).__name__})",
                               "type the password when connecting (the CLI asks on a terminal; scripts set "
                               "VNETBENCH_PASSWORD), or set up a keyring (Secret Service, KWallet)") from None
        if password is None:
            raise BackendError(f"no password for {account} in the OS keyring",
                               f"store it once: keyring set {KEYRING_SERVICE} {account}; or type it when connecting "
                               "(the CLI asks on a terminal; scripts set VNETBENCH_PASSWORD)")
        try:
            self.si = SmartConnect(host=self.server.host, port=self.server.port, path=self.server.path,
                                   user=self.user, pwd=password, sslContext=self._tls,
                                   httpConnectionTimeout=self.timeout)
        except vim.fault.InvalidLogin:
            fix = ("check the user name and the password given for this session (typed, or VNETBENCH_PASSWORD)"
                   if self._typed_password else
                   f"check the user name, or update the keyring entry: keyring set {KEYRING_SERVICE} {account}")
            raise BackendError(f"login to {self.server.hostport} as {self.user} failed: wrong user name or password",
                               fix) from None
        except PinMismatch as exc:
            raise CertificateChanged(self.server.hostport, pretty(self.pinned or exc.seen), pretty(exc.seen),
                                     "it changed after the first look, before the password was sent; find out "
                                     "why (a proxy?) before you trust it") from None
        except OSError as exc:
            raise _socket_error(self.server, exc) from None
        except vim.fault.VimFault as exc:
            swapped = _pin_mismatch(exc)
            if swapped is not None:  # pyVmomi wraps a failed first call in HostConnectFault
                raise CertificateChanged(self.server.hostport, pretty(self.pinned or swapped.seen),
                                         pretty(swapped.seen), "it changed after the first look, before the "
                                         "password was sent; find out why (a proxy?) before you trust it") from None
            raise BackendError(f"login to {self.server.hostport} failed: {exc.msg}", "check the server") from None
        finally:
            del password
        self._content = self.si.RetrieveContent()  # once: every property read is a round trip
        about = self._content.about
        log.info("connected to %s (%s %s) as %s", self.server.hostport, about.fullName, about.apiType, self.user)

    # --- using --------------------------------------------------------------------------------------

    @property
    def content(self) -> Any:
        if self.si is None:
            raise BackendError("not connected to vSphere", "connect first")
        return self._content

    @property
    def identity(self) -> str:
        """What names this server in local records: vCenter's instance UUID (the same under every address),
        else ``host:port`` (a standalone ESXi host has none)."""
        return self.content.about.instanceUuid or self.server.hostport

    @property
    def is_vcenter(self) -> bool:
        return self.content.about.apiType == "VirtualCenter"

    def ensure_session(self) -> None:
        """Log in again if the server dropped the session (idle timeout, restart) since the last call."""
        if self.call(lambda: self.content.sessionManager.currentSession) is None:
            log.info("the session to %s expired; logging in again", self.server.hostport)
            self._login()

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn``; if the session expired (``NotAuthenticated``), log in again once and rerun it.
        A lost server or a changed certificate becomes a one-line ``BackendError``."""
        try:
            return self._call(fn)
        except Exception as exc:  # noqa: BLE001 - sorted: connection problems become sentences, the rest stays
            failure = session_failure(self.server, exc, self.pinned)
            if failure is None:
                raise
            raise failure from None

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except vim.fault.NotAuthenticated:
            log.info("the session to %s expired; logging in again", self.server.hostport)
            self._login()
            try:
                return fn()
            except vim.fault.NotAuthenticated:
                raise BackendError(f"the session to {self.server.hostport} expired again right after login",
                                   "check the user's permissions and the server's session limits") from None

    def close(self) -> None:
        if self.si is not None:
            try:
                Disconnect(self.si)
            except Exception:  # noqa: BLE001 - closing a dead session must not fail the caller
                log.debug("disconnect from %s failed", self.server.hostport, exc_info=True)
            self.si = self._content = None
