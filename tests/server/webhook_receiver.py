"""A real HTTP receiver on the loopback for webhook tests: it records every request and can
be told to fail, redirect, hang or trickle its answer.

It listens on 127.0.0.1 on a free port, one thread per request. A hanging handler waits on
an event that :meth:`Receiver.close` sets, so no test waits for it to give up.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.waiting import wait_until


@dataclass(frozen=True)
class Received:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def header(self, name: str) -> str | None:
        """A header's value by its name in any case (None when absent)."""
        return self.headers.get(name.lower())


class Receiver:
    """The receiver; its settings may change between requests (from the test's thread)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[Received] = []
        #: Answer this status to the first ``fail_first`` requests, then ``status``.
        self.fail_first = 0
        self.fail_status = 500
        self.status = 200
        self.answer = b"ok"
        #: Where a 3xx answer points (``status`` 301 to 308).
        self.location = "/elsewhere"
        #: Hold every answer until :meth:`close` (a server that never answers).
        self.hang = False
        #: Send the answer's head one byte at a time, ``trickle_gap`` seconds apart.
        self.trickle = False
        self.trickle_gap = 0.2
        #: The server name each TLS handshake asked for (SNI).
        self.server_names: list[str | None] = []
        self.released = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        if tls is not None:
            tls.sni_callback = self._note_sni
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="webhook-receiver",
            daemon=True,
        )
        self._thread.start()

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self._server.server_address[1])

    def url(self, path: str = "/hook", host: str = "127.0.0.1", scheme: str = "http") -> str:
        """A URL of this receiver (``host`` may be a name the test makes resolve here)."""
        return f"{scheme}://{host}:{self.port}{path}"

    def _note_sni(self, sock: ssl.SSLObject, name: str | None, context: ssl.SSLContext) -> None:
        with self._lock:
            self.server_names.append(name)

    def record(self, request: Received) -> int:
        """Keep ``request``; answer its number (1 for the first)."""
        with self._lock:
            self.requests.append(request)
            return len(self.requests)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The first ``count`` requests, once that many have arrived."""

        def arrived() -> list[Received] | None:
            with self._lock:
                return list(self.requests[:count]) if len(self.requests) >= count else None

        return wait_until(arrived, timeout=timeout, what=f"{count} request(s) to the receiver")

    def close(self) -> None:
        """Release any hanging answer and stop listening."""
        self.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: the tests read what was received instead

        def do_POST(self) -> None:
            self._answer()

        def do_GET(self) -> None:
            self._answer()

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            number = receiver.record(
                Received(
                    method=self.command,
                    path=self.path,
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=body,
                )
            )
            if receiver.hang:
                receiver.released.wait(60)
                return
            status = receiver.fail_status if number <= receiver.fail_first else receiver.status
            answer = receiver.answer
            head = f"HTTP/1.1 {status} Whatever\r\nContent-Length: {len(answer)}\r\n"
            if 300 <= status < 400:
                head += f"Location: {receiver.location}\r\n"
            head += "Connection: close\r\n\r\n"
            if receiver.trickle:
                for byte in head.encode():
                    if receiver.released.wait(receiver.trickle_gap):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            else:
                self.wfile.write(head.encode())
            self.wfile.write(answer)
            self.close_connection = True

    return Handler


@contextmanager
def receiving(tls: ssl.SSLContext | None = None) -> Iterator[Receiver]:
    """A receiver for the length of a ``with`` block."""
    receiver = Receiver(tls)
    try:
        yield receiver
    finally:
        receiver.close()


def self_signed(folder: Path, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A certificate for ``name`` (and 127.0.0.1): the server's context, and a client context
    that trusts that certificate only."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    start = datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=7))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName(name), x509.IPAddress(ipaddress.IPv4Address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file = folder / "cert.pem"
    key_file = folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    client = ssl.create_default_context(cafile=str(cert_file))
    return server, client
