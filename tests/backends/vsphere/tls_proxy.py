"""A TLS proxy on loopback that shows one certificate to its first connections and another one afterwards.

It ends TLS itself (with certificate A or B, made here with ``cryptography``), opens its own TLS connection to
the real server (vcsim) and relays the bytes both ways, counting what each client connection sent. That is the
man in the middle the certificate pin must stop.
"""

from __future__ import annotations

import datetime
import hashlib
import select
import socket
import ssl
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from vcsim_tools import Loopback


def make_certificate(directory: Path, name: str) -> tuple[Path, Path, str]:
    """A self-signed certificate for 127.0.0.1: (cert file, key file, SHA-256 fingerprint)."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    cert_file, key_file = directory / f"{name}.crt", directory / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file, hashlib.sha256(cert.public_bytes(serialization.Encoding.DER)).hexdigest()


class SwappingProxy(Loopback):
    """Listens on 127.0.0.1; connection number ``n`` (from 0) is served with certificate A while
    ``n < first_a``, with B after. ``swap()`` serves B to every connection from now on."""

    def __init__(self, directory: Path, upstream: tuple[str, int], first_a: int = 1) -> None:
        self.upstream = upstream
        self.first_a = first_a
        self.contexts = []
        self.fingerprints = []
        for name in ("cert-a", "cert-b"):
            cert, key, fingerprint = make_certificate(directory, name)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self.contexts.append(context)
            self.fingerprints.append(fingerprint)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        #: Bytes each client connection sent after its handshake, by the certificate it was shown ("A"/"B").
        self.sent = {"A": 0, "B": 0}
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def swap(self) -> None:
        with self._lock:
            self.first_a = 0

    def close(self) -> None:
        self._stop = True
        self.listener.close()
        with self._lock:
            for sock in self._open:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                which = "A" if self.connections < self.first_a else "B"
                self.connections += 1
            threading.Thread(target=self._serve, args=(client, which), daemon=True).start()

    def _serve(self, client: socket.socket, which: str) -> None:
        context = self.contexts[0 if which == "A" else 1]
        try:
            tls = context.wrap_socket(client, server_side=True)
        except (OSError, ssl.SSLError):
            client.close()  # the client refused the certificate during the handshake
            return
        upstream_context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        upstream_context.check_hostname = False
        upstream_context.verify_mode = ssl.CERT_NONE
        try:
            server = upstream_context.wrap_socket(socket.create_connection(self.upstream, timeout=10))
        except OSError:
            tls.close()
            return
        server.settimeout(None)
        with self._lock:
            self._open += [tls, server]
        try:
            self._relay(tls, server, which)
        finally:
            for sock in (tls, server):
                try:
                    sock.close()
                except OSError:
                    pass

    def _relay(self, client: ssl.SSLSocket, server: ssl.SSLSocket, which: str) -> None:
        """Copy bytes both ways. Non-blocking reads: a TLS record that holds no data (a TLS 1.3 session ticket)
        makes a socket readable, and a blocking read would then wait for data that is not coming."""
        peers = {client: server, server: client}
        for sock in peers:
            sock.setblocking(False)
        while True:
            readable = [s for s in peers if s.pending()] or select.select(list(peers), [], [], 30)[0]
            if not readable:
                return
            for sock in readable:
                try:
                    data = sock.recv(65536)
                except (ssl.SSLWantReadError, BlockingIOError):
                    continue
                except (OSError, ssl.SSLError):
                    return
                if not data:
                    return
                if sock is client:
                    with self._lock:
                        self.sent[which] += len(data)
                try:
                    peers[sock].setblocking(True)
                    peers[sock].sendall(data)
                    peers[sock].setblocking(False)
                except OSError:
                    return
