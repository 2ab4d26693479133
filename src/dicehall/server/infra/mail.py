"""Sending e-mail: over SMTP (``DICEHALL_SMTP_URL``), or into a Maildir when no SMTP server is
set, so that a site started with nothing else still keeps every mail (``dicehall mail`` lists
them).

Sending blocks: callers run it in a thread, never on the event loop. Every failure is a
:class:`MailError` whose message names the server and never holds the password.
"""

from __future__ import annotations

import ipaddress
import mailbox
import smtplib
import ssl
import threading
from email.message import EmailMessage
from email.utils import getaddresses
from pathlib import Path
from typing import Protocol
from urllib.parse import quote, urlsplit

from dicehall.engine.storage import data_dir
from dicehall.server.core.config import Settings
from dicehall.server.core.smtp_url import SmtpTarget, parse_smtp_url


class MailError(Exception):
    """A mail could not be sent. ``permanent``: trying again cannot help (the server refused
    the recipient or the message for good); otherwise a later try may succeed."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


class Mailer(Protocol):
    """Something that sends e-mail."""

    def send(self, message: EmailMessage) -> None:
        """Send one message to its ``To``/``Cc``/``Bcc``; raises :class:`MailError`."""
        ...

    def describe(self) -> str:
        """Where mail goes, for logs and the command line (no password)."""
        ...


class SmtpMailer:
    """Sends through an SMTP server: STARTTLS on ``smtp://`` when the server offers it, TLS
    from the start on ``smtps://``, and a login when the URL has a user."""

    def __init__(
        self,
        target: SmtpTarget,
        timeout: float,
        ssl_context: ssl.SSLContext | None = None,
        *,
        local_hostname: str | None = None,
    ) -> None:
        self.target = target
        self.timeout = timeout
        self.ssl_context = ssl_context or ssl.create_default_context()
        self.local_hostname = local_hostname

    def describe(self) -> str:
        """``SMTP host:port`` (``SMTPS`` for TLS from the start)."""
        return f"{self.target.scheme.upper()} {self.target.address}"

    def send(self, message: EmailMessage) -> None:
        """Send ``message``; every failure is a :class:`MailError`."""
        recipients = [
            address
            for _, address in getaddresses(
                [str(value) for name in ("To", "Cc", "Bcc") for value in message.get_all(name, [])]
            )
            if address
        ]
        if not recipients:
            raise MailError("the message names no recipient", permanent=True)
        try:
            self._send(message)
        except MailError as exc:
            raise MailError(self._scrub(str(exc)), permanent=exc.permanent) from None

    def _send(self, message: EmailMessage) -> None:
        host, port = self.target.host, self.target.port
        client: smtplib.SMTP | None = None
        stage = "connect"
        try:
            # Connecting in the constructor is what gives smtplib the host name that TLS
            # checks the certificate against.
            if self.target.scheme == "smtps":
                client = smtplib.SMTP_SSL(
                    host,
                    port,
                    local_hostname=self.local_hostname,
                    timeout=self.timeout,
                    context=self.ssl_context,
                )
            else:
                client = smtplib.SMTP(
                    host, port, local_hostname=self.local_hostname, timeout=self.timeout
                )
            stage = "greet"
            client.ehlo()
            if self.target.scheme == "smtp" and client.has_extn("starttls"):
                stage = "starttls"
                client.starttls(context=self.ssl_context)
                client.ehlo()
            if self.target.username is not None:
                stage = "login"
                if (
                    self.target.scheme == "smtp"
                    and client.sock is not None
                    and not isinstance(client.sock, ssl.SSLSocket)
                    and not on_this_machine(self.target.host)
                ):
                    raise MailError(
                        f"the SMTP server at {self.target.address} offers no STARTTLS: the "
                        "password is not sent in clear across a network (use smtps://, or a "
                        "server that offers STARTTLS)"
                    )
                client.login(self.target.username, self.target.password or "")
            stage = "send"
            refused = client.send_message(message)
        except MailError:
            raise
        except Exception as exc:
            raise self._error(exc, stage) from None
        finally:
            if client is not None:
                _close(client)
        if refused:
            raise self._refused(refused)

    def _error(self, exc: Exception, stage: str) -> MailError:
        # smtplib's errors are OSErrors too: the SMTP ones come first.
        where = f"the SMTP server at {self.target.address}"
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            return self._refused(exc.recipients)
        if isinstance(exc, smtplib.SMTPAuthenticationError):
            return MailError(
                f"{where} refused the login as {self.target.username!r}: {_reply(exc)}"
            )
        if isinstance(exc, smtplib.SMTPResponseException) and exc.smtp_code == 530:
            return MailError(
                f"{where} asks for a login ({_reply(exc)}): the SMTP URL needs user:password@"
            )
        if isinstance(exc, smtplib.SMTPSenderRefused):
            # The site's sender address is at fault, not this message: once the operator
            # fixes it, a retry succeeds.
            return MailError(f"{where} refused the sender {exc.sender}: {_reply(exc)}")
        if isinstance(exc, smtplib.SMTPDataError):
            return MailError(
                f"{where} refused the message: {_reply(exc)}", permanent=exc.smtp_code >= 500
            )
        if isinstance(exc, smtplib.SMTPNotSupportedError):
            if stage == "login":
                return MailError(f"{where} offers no login (AUTH), but the URL gives a user")
            # An address that needs SMTPUTF8, which this server lacks: no retry changes that.
            return MailError(f"{where} cannot take this message: {exc}", permanent=True)
        if isinstance(exc, smtplib.SMTPServerDisconnected):
            return MailError(f"{where} closed the connection unexpectedly")
        if isinstance(exc, smtplib.SMTPResponseException):
            return MailError(f"{where} answered {_reply(exc)}")
        if isinstance(exc, smtplib.SMTPException):
            return MailError(f"{where}: {exc}")
        if isinstance(exc, ssl.SSLCertVerificationError):
            reason = exc.verify_message or exc.reason or str(exc)
            return MailError(f"TLS with {where} failed: its certificate is not trusted ({reason})")
        if isinstance(exc, ssl.SSLError):
            reason = exc.reason or str(exc)
            if reason == "WRONG_VERSION_NUMBER":
                reason += " (it does not speak TLS from the start: use smtp://)"
            return MailError(f"TLS with {where} failed: {reason}")
        if isinstance(exc, TimeoutError):
            return MailError(f"{where} did not answer within {self.timeout:g} s")
        if isinstance(exc, OSError):
            reason = exc.strerror or str(exc) or type(exc).__name__
            if stage == "connect":
                return MailError(f"cannot reach {where}: {reason}")
            return MailError(f"the connection to {where} failed: {reason}")
        if isinstance(exc, ValueError | UnicodeError):
            return MailError(f"cannot send this message: {exc}", permanent=True)
        return MailError(f"{where}: {type(exc).__name__}: {exc}")

    def _refused(self, recipients: dict[str, tuple[int, bytes]]) -> MailError:
        where = f"the SMTP server at {self.target.address}"
        if not recipients:
            return MailError(f"{where} refused every recipient", permanent=True)
        text = "; ".join(
            f"{address}: {code} {reply.decode('utf-8', 'replace')}"
            for address, (code, reply) in recipients.items()
        )
        permanent = all(code >= 500 for code, _ in recipients.values())
        return MailError(f"{where} refused the recipient {text}", permanent=permanent)

    def _scrub(self, text: str) -> str:
        password = self.target.password
        if not password:
            return text
        for form in {password, quote(password, safe="")}:
            text = text.replace(form, "***")
        return text


_MAILDIR_LOCK = threading.Lock()


class MaildirMailer:
    """Writes each message into a Maildir (made, private to its owner, when missing)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def describe(self) -> str:
        """``Maildir /path``."""
        return f"Maildir {self.path}"

    def send(self, message: EmailMessage) -> None:
        """Add ``message`` to the Maildir; a folder that cannot be written is a MailError."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # The standard library names a new file by the time, the process and a counter
            # it does not guard: two threads of one process in the same microsecond clash.
            with _MAILDIR_LOCK:
                mailbox.Maildir(self.path, create=True).add(message)
        except (OSError, mailbox.Error) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise MailError(f"cannot write mail to the Maildir {self.path}: {reason}") from None


def mail_dir(settings: Settings) -> Path:
    """The Maildir used while no SMTP server is set (``mail`` in the data directory)."""
    return Path(settings.mail_dir).expanduser() if settings.mail_dir else data_dir() / "mail"


def mailer_for(settings: Settings) -> Mailer:
    """SMTP when ``smtp_url`` is set, else the Maildir; a malformed URL is a ValueError."""
    if settings.smtp_url is None:
        return MaildirMailer(mail_dir(settings))
    target = parse_smtp_url(settings.smtp_url.get_secret_value())
    return SmtpMailer(
        target, settings.outbound_timeout, local_hostname=ehlo_name(settings.site_url)
    )


def on_this_machine(host: str) -> bool:
    """Whether ``host`` is this machine's loopback (a password may cross it unencrypted)."""
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def ehlo_name(site_url: str) -> str | None:
    """The name this site greets SMTP servers with: its own host, an address in brackets
    (as RFC 5321 writes one); None when the URL has no host (smtplib asks the system)."""
    host = urlsplit(site_url).hostname
    if not host:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    return f"[IPv6:{address}]" if address.version == 6 else f"[{address}]"


def _reply(exc: smtplib.SMTPResponseException) -> str:
    text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) else ""
    return f"{exc.smtp_code} {text}".strip()


def _close(client: smtplib.SMTP) -> None:
    try:
        client.quit()
    except (smtplib.SMTPException, OSError):
        client.close()
