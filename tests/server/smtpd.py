"""A real SMTP server on the loopback for the mail tests (aiosmtpd in a thread).

``running_smtp_server()`` starts one on a free port of 127.0.0.1 and collects what arrives:
each mail parsed, with its envelope, whether it came over TLS and who logged in. It can ask
for a login, speak TLS from the start (smtps) or offer STARTTLS, with a self-signed
certificate for 127.0.0.1 that :attr:`SmtpServer.client_context` trusts, and refuse chosen
recipients with chosen replies.
"""

from __future__ import annotations

import datetime
import email
import email.policy
import ipaddress
import socket
import ssl
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.waiting import wait_until

TlsMode = Literal["implicit", "starttls"]


@dataclass(frozen=True)
class Received:
    """One mail as the server took it."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    message: EmailMessage
    #: It came over TLS (from the start, or after STARTTLS).
    tls: bool
    #: The user that logged in, if one did.
    login: str | None


class _Collector:
    """aiosmtpd's handler: keeps each mail, refuses the recipients it was told to."""

    def __init__(self, refuse: Mapping[str, str]) -> None:
        self.refuse = dict(refuse)
        self.lock = threading.Lock()
        self.received: list[Received] = []

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        message = email.message_from_bytes(content, policy=email.policy.default)
        transport = server.transport
        tls = transport is not None and transport.get_extra_info("ssl_object") is not None
        auth: Any = session.auth_data  # what the authenticator kept: a LoginPassword
        login = auth.login.decode() if isinstance(auth, LoginPassword) else None
        with self.lock:
            self.received.append(
                Received(
                    str(envelope.mail_from),
                    tuple(envelope.rcpt_tos),
                    message,
                    tls,
                    login,
                )
            )
        return "250 OK"


class _BoundController(Controller):
    """A Controller on a socket bound beforehand, so that port 0 picks a free port."""

    def __init__(self, handler: Any, sock: socket.socket, **kwargs: Any) -> None:
        self._sock = sock
        super().__init__(handler, hostname="127.0.0.1", port=sock.getsockname()[1], **kwargs)

    def _create_server(self) -> Any:
        return self.loop.create_server(self._factory_invoker, sock=self._sock, ssl=self.ssl_context)


class SmtpServer:
    """A running test SMTP server."""

    def __init__(
        self, collector: _Collector, port: int, client_context: ssl.SSLContext | None
    ) -> None:
        self._collector = collector
        self.host = "127.0.0.1"
        self.port = port
        #: Trusts this server's certificate (None when it speaks no TLS).
        self.client_context = client_context

    def url(self, scheme: str = "smtp", user: str | None = None, password: str = "") -> str:
        """This server's URL, with a percent-encoded user and password when given."""
        who = f"{quote(user, safe='')}:{quote(password, safe='')}@" if user else ""
        return f"{scheme}://{who}{self.host}:{self.port}"

    @property
    def received(self) -> list[Received]:
        """The mails so far, oldest first."""
        with self._collector.lock:
            return list(self._collector.received)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The mails once at least ``count`` have arrived."""

        def arrived() -> list[Received] | None:
            got = self.received
            return got if len(got) >= count else None

        return wait_until(
            arrived,
            timeout=timeout,
            what=f"{count} mail(s) at the SMTP server",
        )


@contextmanager
def running_smtp_server(
    *,
    tls: TlsMode | None = None,
    auth: tuple[str, str] | None = None,
    refuse: Mapping[str, str] | None = None,
    cert_dir: Path | None = None,
) -> Iterator[SmtpServer]:
    """An SMTP server on 127.0.0.1 until the block ends.

    ``tls``: "implicit" (smtps) or "starttls" (offered, not required), with a certificate
    written to ``cert_dir``; ``auth``: the one user and password it takes, and then requires;
    ``refuse``: recipient address -> the reply that refuses it ("550 5.1.1 no such user").
    """
    server_context: ssl.SSLContext | None = None
    client_context: ssl.SSLContext | None = None
    if tls is not None:
        if cert_dir is None:
            raise ValueError("a TLS server needs a cert_dir for its certificate")
        cert, key = self_signed_certificate(cert_dir)
        server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server_context.load_cert_chain(cert, key)
        client_context = ssl.create_default_context(cafile=str(cert))
    collector = _Collector(refuse or {})
    options: dict[str, Any] = {}
    if tls == "implicit":
        options["ssl_context"] = server_context
    elif tls == "starttls":
        options.update(tls_context=server_context, require_starttls=False)
    if auth is not None:

        def authenticate(
            server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
        ) -> AuthResult:
            ok = (
                isinstance(data, LoginPassword)
                and (
                    data.login.decode(),
                    data.password.decode(),
                )
                == auth
            )
            return AuthResult(success=ok, handled=False, auth_data=data if ok else None)

        options.update(authenticator=authenticate, auth_required=True)
        # Tests log in over plain connections too; a real server would insist on TLS.
        options.update(auth_require_tls=False)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    controller = _BoundController(collector, sock, **options)
    controller.start()
    try:
        yield SmtpServer(collector, port, client_context)
    finally:
        controller.stop()


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key, written to ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dicehall test SMTP")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.DNSName("localhost"),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path = folder / "smtpd-cert.pem"
    key_path = folder / "smtpd-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path
