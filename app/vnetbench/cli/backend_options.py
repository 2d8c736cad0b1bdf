"""Options shared by the commands that talk to a backend (deploy, teardown, import).

Generic over backends: ``--backend`` picks the plugin, and the connection options become its settings.
Passwords are never options (they would show in ``ps`` and shell history): the backend reads them from the
OS keyring; without an entry there, a script sets ``VNETBENCH_PASSWORD``, and on a terminal the user is asked.
"""

from __future__ import annotations

import argparse
import getpass
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..backends.contract import (Backend, BackendError, BadSetting, CancelToken, MissingExtra, SettingKind,
                                 Unsupported)
from ..backends.discovery import backend_class
from ..model.text import one_line
from .main import EXIT_BACKEND, EXIT_USAGE, CliError

T = TypeVar("T")
PASSWORD_ENV = "VNETBENCH_PASSWORD"


def add_backend_options(parser: argparse.ArgumentParser, default: str | None = "local") -> None:
    parser.add_argument("--backend", default=default, required=default is None,
                        help="backend plugin (local, vsphere, ...)" + (f"; default {default}" if default else ""))
    parser.add_argument("--url", help="server address, like https://vcenter.example/sdk")
    parser.add_argument("--user", help=f"user name (the password comes from the OS keyring, else ${PASSWORD_ENV}, "
                                       "else it is asked for on the terminal)")
    parser.add_argument("--trust-fingerprint", metavar="SHA256",
                        help="trust this self-signed certificate (its SHA-256 fingerprint); it is pinned")
    parser.add_argument("--set", dest="options", action="append", default=[], metavar="KEY=VALUE",
                        help="a backend setting, like datastore=LocalDS_0 or template=debian-tpl (repeatable)")


def settings_from(args: argparse.Namespace) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for key in ("url", "user", "trust_fingerprint"):
        if getattr(args, key, None):
            settings[key] = getattr(args, key)
    for item in args.options:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"--set {item!r} is not KEY=VALUE (write it like --set datastore=LocalDS_0)")
        settings[key.strip()] = value
    return settings


def with_session_secret(cls: type[Backend], settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` plus the password for this session when the OS keyring holds none: ``VNETBENCH_PASSWORD``,
    else typed at a terminal prompt (never echoed). Otherwise unchanged: the backend reads the keyring, or
    says clearly what is missing."""
    secret = next((f for f in cls.settings_fields if f.kind is SettingKind.SECRET), None)
    if secret is None or settings.get(secret.name):
        return settings
    if os.environ.get(PASSWORD_ENV):
        return {**settings, secret.name: os.environ[PASSWORD_ENV]}
    account = cls.secret_account(settings)
    if cls.keyring_service:
        import keyring  # only backends with a password need it, and their extra installs it
        from keyring.errors import KeyringError

        try:
            if keyring.get_password(cls.keyring_service, account) is not None:
                return settings
        except KeyringError:
            pass  # no usable keyring: ask
    if not sys.stdin.isatty():
        return settings
    try:
        typed = getpass.getpass(f"{secret.label} for {account}: ")
    except EOFError:
        return settings
    return {**settings, secret.name: typed} if typed else settings


def open_backend(args: argparse.Namespace, connect: bool = True) -> Backend:
    """The chosen backend, connected unless ``connect`` is False (then ``connect_backend`` later); errors
    become one-line ``CliError``s (bad settings: 2, else 3)."""
    try:
        cls = backend_class(args.backend)
    except LookupError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    try:
        backend = cls(with_session_secret(cls, settings_from(args)))
    except BadSetting as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except BackendError as exc:
        raise CliError(str(exc), EXIT_BACKEND) from None
    if connect:
        connect_backend(backend)
    return backend


def connect_backend(backend: Backend) -> None:
    """``backend.connect()`` with its errors as one-line ``CliError``s."""
    try:
        backend.connect()
    except (BadSetting, MissingExtra) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except BackendError as exc:
        raise CliError(str(exc), EXIT_BACKEND) from None


def guarded(fn: Callable[[], T]) -> T:
    """Run a backend call, turning its errors into ``CliError`` (bad design or settings: 2, backend trouble: 3)."""
    try:
        return fn()
    except (Unsupported, BadSetting, MissingExtra) as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    except BackendError as exc:
        raise CliError(str(exc), EXIT_BACKEND) from None


class SignalToken(CancelToken):
    """A cancel token that remembers the signal that set it (``signum``, 0 when none): the exit status
    is then 128 + it, as a shell reports a command stopped by that signal."""

    signum = 0


#: Signals that stop a long operation between its steps: Ctrl-C, ``kill``, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_cancellable(work: Callable[[CancelToken], T], token: CancelToken | None = None) -> T:
    """Run ``work`` in a worker thread; Ctrl-C, SIGTERM or SIGHUP ask it to stop between steps (the token is
    cancelled) instead of killing it, so it can report what it did and leave no probe or record half-made.
    A second signal exits at once (128 + the signal), for a step that hangs.

    The main thread waits on an event with the signals handled, never in ``Thread.join``: on CPython 3.11 a
    KeyboardInterrupt inside ``join`` can mark a running thread as stopped, which lost its result.
    """
    token = token if token is not None else SignalToken()
    done = threading.Event()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work(token)
        except BaseException as exc:  # noqa: BLE001 - handed back to the main thread
            box["error"] = exc
        finally:
            done.set()

    def stop(signum: int, frame: Any) -> None:
        if token.cancelled:     # a second signal: stop at once, as a kill would (the next run finishes the job)
            print("stopped at once", file=sys.stderr, flush=True)
            sys.stdout.flush()
            os._exit(128 + signum)
        print("cancelling: waiting for the running step to end (again to stop at once)", file=sys.stderr,
              flush=True)
        if isinstance(token, SignalToken):
            token.signum = signum
        token.cancel()

    handled = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS} if handled else {}
    try:
        threading.Thread(target=target, name="vnetbench-backend", daemon=True).start()
        while not done.wait(0.2):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if "error" in box:
        raise box["error"]
    return box["result"]


def progress_printer(enabled: bool) -> Callable[[int, int, str], None] | None:
    if not enabled:
        return None

    def progress(done: int, total: int, message: str) -> None:
        print(f"[{done}/{total}] {one_line(message)}", file=sys.stderr, flush=True)

    return progress
