"""Outgoing HTTP that a user's input points at (webhooks, push endpoints), made safe.

A URL is refused unless it is plain ``http``/``https`` to a public address: no credentials
in it, no private, loopback, link-local, multicast, reserved or shared address (nor those
addresses hidden in IPv4-mapped, 6to4, Teredo or NAT64 IPv6 forms, nor in odd numeric host
forms such as ``2130706433`` or ``0x7f.1``). The site's ``outbound_allow`` names hosts and
networks allowed although private (a receiver on the same machine, in tests or on a LAN).

:func:`post` resolves the host once, checks every address, and connects to a checked
address itself (``Host``, SNI and certificate checks still name the URL's host), so a name
that resolves elsewhere between the check and the connection (DNS rebinding) cannot reach a
private address. Redirects are never followed, and the whole request, name lookup included,
keeps to its timeout. Blocking: callers run it in a worker thread.

(A little longer than most modules: the URL's checks and the pinned request share one parsed
target and one notion of an allowed address, and are read together when reviewing SSRF.)
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

import urllib3.exceptions
from urllib3.connection import HTTPConnection, HTTPSConnection

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: The most of an answer's body that is read (the rest is dropped).
MAX_BODY = 64 * 1024

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")
# The well-known NAT64 prefix (RFC 6052); the local-use one (64:ff9b:1::/48) may place its
# IPv4 address elsewhere, so it is simply not public.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_FORM = "a NAT64 form"
# A last label made of digits or hex: browsers and inet_aton read such a host as an IPv4
# address ("127.1", "0x7f.1", "2130706433"), so only the plain dotted quad is accepted.
_NUMERIC_LABEL = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)$")
_HOST_CHARS = re.compile(r"^[a-z0-9._-]+$")


class OutboundRefused(ValueError):
    """The URL may not be reached; ``reason`` says why ("10.0.0.5 is a private address")."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"URL refused: {reason}")
        self.reason = reason


class OutboundError(Exception):
    """The request was tried and failed: a timeout, a refused connection, a TLS error, or an
    answer with a status of 300 or more (``status``; None when there was no answer)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Response:
    """A 2xx answer: its status, headers (lower-case names) and at most 64 KiB of body."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str
    port: int
    #: The host as the URL writes it in ``Host`` (brackets around IPv6, port if not default).
    host_header: str
    target: str
    address: IPAddress | None


def _parse(url: str) -> _Target:
    """The URL's parts, or :class:`OutboundRefused` for one that may not be reached whatever
    its host resolves to."""
    if any(ord(char) < 33 or ord(char) == 127 for char in url):
        raise OutboundRefused("the URL contains spaces or control characters")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise OutboundRefused(f"the URL is malformed ({exc})") from None
    try:
        port = parts.port
    except ValueError:
        written = parts.netloc.rpartition(":")[2]
        if written.isdigit():
            raise OutboundRefused(f"port {written} is out of range (1 to 65535)") from None
        raise OutboundRefused(f"the port {written!r} is not a number") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise OutboundRefused(f"the scheme must be http or https, not {parts.scheme or 'none'!r}")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise OutboundRefused("the URL must not contain a user name or password")
    host = _host(parts)
    if port is None:
        port = 443 if scheme == "https" else 80
    elif not 1 <= port <= 65535:
        raise OutboundRefused(f"port {port} is out of range (1 to 65535)")
    address = _literal(host)
    shown = f"[{host}]" if isinstance(address, ipaddress.IPv6Address) else host
    default = 443 if scheme == "https" else 80
    target = parts.path or "/"
    if parts.query:
        target += f"?{parts.query}"
    return _Target(
        scheme=scheme,
        host=host,
        port=port,
        host_header=shown if port == default else f"{shown}:{port}",
        target=target,
        address=address,
    )


def _host(parts: SplitResult) -> str:
    """The URL's host, lower-case, IDNA-encoded, without a trailing dot."""
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise OutboundRefused("the URL has no host")
    if ":" in host:
        return host  # an IPv6 literal, checked by _literal
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise OutboundRefused(f"{host!r} is not a valid host name") from None
    if not _HOST_CHARS.match(ascii_host):
        raise OutboundRefused(f"{host!r} is not a valid host name")
    return ascii_host


def _literal(host: str) -> IPAddress | None:
    """The address a host written as an IP literal names, or None for a name."""
    if ":" in host:
        try:
            return ipaddress.IPv6Address(host)
        except ValueError:
            raise OutboundRefused(f"{host!r} is not a valid IPv6 address") from None
    try:
        return ipaddress.IPv4Address(host)
    except ValueError:
        pass
    if _NUMERIC_LABEL.match(host.rsplit(".", 1)[-1]):
        raise OutboundRefused(
            f"{host!r} is not a plain address (write an IPv4 address as four decimal numbers)"
        )
    return None


def _networks(allow: Sequence[str]) -> tuple[set[str], list[IPNetwork]]:
    names: set[str] = set()
    networks: list[IPNetwork] = []
    for entry in allow:
        entry = entry.strip().strip("[]").lower()
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            if entry:
                names.add(entry.rstrip("."))
    return names, networks


def _embedded(address: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """The IPv4 address an IPv6 form carries (mapped, 6to4, Teredo client, NAT64), if any."""
    if address.ipv4_mapped is not None:
        return "an IPv4-mapped form", address.ipv4_mapped
    if address.sixtofour is not None:
        return "a 6to4 form", address.sixtofour
    if address.teredo is not None:
        return "a Teredo form", address.teredo[1]
    if address in _NAT64:
        return _NAT64_FORM, ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _problem(address: IPAddress) -> str | None:
    """What makes an address unfit to reach ("a private address"), or None if it is public."""
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_unspecified:
        return "an unspecified address"
    if isinstance(address, ipaddress.IPv4Address) and address in _SHARED:
        return "a shared address (carrier-grade NAT)"
    if isinstance(address, ipaddress.IPv6Address) and address.is_site_local:
        return "a site-local address"
    if isinstance(address, ipaddress.IPv6Address) and (inner := _embedded(address)):
        form, v4 = inner
        if (what := _problem(v4)) is not None:
            return f"{what} ({form} of {v4})"
        if form == _NAT64_FORM:
            return None  # a public IPv4 host seen through DNS64 on an IPv6-only network
    if address.is_reserved:
        return "a reserved address"
    if address.is_private:
        return "a private address"
    if not address.is_global:
        return "not a public address"
    return None


def _check_address(
    address: IPAddress, networks: Sequence[IPNetwork], host: str | None = None
) -> None:
    if any(address.version == net.version and address in net for net in networks):
        return
    problem = _problem(address)
    if problem is None:
        return
    if host is None:
        raise OutboundRefused(f"{address} is {problem}")
    raise OutboundRefused(f"{host} resolves to {address}, {problem}")


def _resolve(host: str, port: int, timeout: float) -> list[IPAddress]:
    """Every address ``host`` resolves to, in the resolver's order, within ``timeout``."""
    found: list[list[IPAddress]] = []
    failed: list[OSError] = []

    def lookup() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            failed.append(exc)
            return
        addresses: list[IPAddress] = []
        for info in infos:
            text = str(info[4][0]).split("%", 1)[0]
            address = ipaddress.ip_address(text)
            if address not in addresses:
                addresses.append(address)
        found.append(addresses)

    # getaddrinfo takes no timeout: it runs in a thread of its own that is left behind
    # (a daemon) when it takes too long.
    worker = threading.Thread(target=lookup, name="dicehall-resolve", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise OutboundError(f"looking up {host} took more than {timeout:g} s")
    if failed:
        error = failed[0]
        if isinstance(error, socket.gaierror) and error.errno == socket.EAI_AGAIN:
            raise OutboundError(f"looking up {host} failed for now ({error.strerror})")
        raise OutboundRefused(f"{host} does not resolve to an address")
    if not found or not found[0]:
        raise OutboundRefused(f"{host} does not resolve to an address")
    return found[0]


def _addresses(target: _Target, allow: Sequence[str], timeout: float) -> list[IPAddress]:
    """The checked addresses to connect to (every one the host resolves to is checked)."""
    names, networks = _networks(allow)
    if target.address is not None:
        _check_address(target.address, networks)
        return [target.address]
    addresses = _resolve(target.host, target.port, timeout)
    if target.host not in names:
        for address in addresses:
            _check_address(address, networks, target.host)
    return addresses


def check_url(url: str, allow: Sequence[str], *, timeout: float = 10.0) -> None:
    """Refuse (:class:`OutboundRefused`) a URL that may not be reached: the static checks,
    then every address its host resolves to. ``allow`` lists host names and networks
    ("localhost", "127.0.0.1", "10.0.0.0/8") allowed although private. A lookup that fails
    for now or takes longer than ``timeout`` raises :class:`OutboundError`."""
    _addresses(_parse(url), allow, timeout)


def _connection(
    target: _Target, address: IPAddress, timeout: float, tls: ssl.SSLContext | None
) -> HTTPConnection:
    if target.scheme == "http":
        return HTTPConnection(str(address), target.port, timeout=timeout)
    return HTTPSConnection(
        str(address),
        target.port,
        timeout=timeout,
        server_hostname=target.host,
        ssl_context=tls if tls is not None else ssl.create_default_context(),
    )


def _failure(exc: BaseException, target: _Target, timeout: float) -> OutboundError:
    """The request's failure in one sentence."""
    cause = exc.__cause__ if isinstance(exc, urllib3.exceptions.HTTPError) else exc
    if isinstance(cause, ConnectionRefusedError):
        return OutboundError(f"{target.host} refused the connection on port {target.port}")
    if isinstance(exc, urllib3.exceptions.NewConnectionError):
        return OutboundError(f"could not connect to {target.host}: {_first_line(exc)}")
    if isinstance(exc, (socket.timeout, urllib3.exceptions.TimeoutError)):
        return OutboundError(f"{target.host} did not answer within {timeout:g} s")
    if isinstance(exc, (ssl.SSLError, urllib3.exceptions.SSLError)):
        return OutboundError(f"TLS with {target.host} failed: {_first_line(exc)}")
    return OutboundError(f"the request to {target.host} failed: {_first_line(exc)}")


def _first_line(exc: BaseException) -> str:
    cause: BaseException = exc
    while isinstance(cause, urllib3.exceptions.HTTPError) and cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(cause).strip().splitlines()
    return text[0] if text else type(cause).__name__


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    timeout: float,
    allow: Sequence[str],
    tls: ssl.SSLContext | None = None,
) -> Response:
    """POST ``body`` to ``url`` (checked as :func:`check_url` does) and answer its 2xx
    response; anything else raises :class:`OutboundError` (``status`` set for an answer of
    300 or more: redirects are not followed). ``timeout`` bounds the whole request; ``tls``
    is the trust to check certificates with (None: the system's)."""
    deadline = time.monotonic() + timeout
    target = _parse(url)
    addresses = _addresses(target, allow, timeout)
    sent = {name.lower(): value for name, value in headers.items()}
    request_headers = {**headers}
    if "host" not in sent:
        request_headers["Host"] = target.host_header
    last: BaseException | None = None
    for address in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        conn = _connection(target, address, left, tls)
        try:
            try:
                conn.connect()
            except (OSError, urllib3.exceptions.HTTPError) as exc:
                if isinstance(exc, (ssl.SSLError, urllib3.exceptions.SSLError)):
                    raise _failure(exc, target, timeout) from None
                last = exc  # the next address may answer
                continue
            return _exchange(conn, target, body, request_headers, deadline, timeout)
        finally:
            conn.close()
    if last is None:
        raise OutboundError(f"{target.host} did not answer within {timeout:g} s")
    raise _failure(last, target, timeout)


def _exchange(
    conn: HTTPConnection,
    target: _Target,
    body: bytes,
    headers: Mapping[str, str],
    deadline: float,
    timeout: float,
) -> Response:
    """Send the request on the connected ``conn`` and read the answer before ``deadline``
    (a watchdog shuts the socket at the deadline, so a server that trickles its answer
    cannot hold the caller past it)."""
    late = threading.Event()

    def cut() -> None:
        late.set()
        sock = conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # closed already
                sock.shutdown(socket.SHUT_RDWR)

    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        conn.request(
            "POST",
            target.target,
            body=body,
            headers=dict(headers),
            preload_content=False,
            decode_content=False,
        )
        answer = conn.getresponse()
        data = answer.read(MAX_BODY, decode_content=False)
        status = answer.status
        answer_headers = {name.lower(): value for name, value in answer.headers.items()}
    except (OSError, urllib3.exceptions.HTTPError, http.client.HTTPException, ValueError) as exc:
        if late.is_set():
            raise OutboundError(f"{target.host} did not answer within {timeout:g} s") from None
        raise _failure(exc, target, timeout) from None
    finally:
        watchdog.cancel()
    if late.is_set():
        raise OutboundError(f"{target.host} did not answer within {timeout:g} s")
    if 300 <= status < 400:
        raise OutboundError(
            f"{target.host} answered HTTP {status} (redirects are not followed)", status=status
        )
    if status >= 400:
        raise OutboundError(f"{target.host} answered HTTP {status}", status=status)
    return Response(status=status, headers=answer_headers, body=data)


__all__ = ["MAX_BODY", "OutboundError", "OutboundRefused", "Response", "check_url", "post"]
