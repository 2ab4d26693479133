"""Safe outgoing HTTP: what is refused and why, the allow list, and real posts to a receiver
on the loopback (redirects not followed, the whole request within its timeout, the address
checked being the one connected to)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dicehall.server.infra import outbound
from dicehall.server.infra.outbound import OutboundError, OutboundRefused, check_url, post
from tests.server.webhook_receiver import Receiver, receiving, self_signed

LOOPBACK = ("127.0.0.1",)

#: URLs refused whatever the allow list is empty of, and a part of the reason each gives.
REFUSED = [
    ("ftp://example.com/hook", "scheme must be http or https"),
    ("file:///etc/passwd", "scheme must be http or https"),
    ("gopher://example.com/", "scheme must be http or https"),
    ("//example.com/hook", "scheme must be http or https"),
    ("http://user:secret@example.com/", "user name or password"),
    ("http://user@example.com/", "user name or password"),
    ("http://example.com:0/", "port 0 is out of range"),
    ("http://example.com:65536/", "port 65536 is out of range"),
    ("http://example.com:http/", "is not a number"),
    ("http:///hook", "has no host"),
    ("http://exa mple.com/", "spaces or control characters"),
    ("http://example.com/\r\nX-Injected: 1", "spaces or control characters"),
    ("http://[::1/", "malformed"),
    ("http://10.0.0.5/", "10.0.0.5 is a private address"),
    ("http://172.16.3.4/", "172.16.3.4 is a private address"),
    ("http://192.168.1.1/", "192.168.1.1 is a private address"),
    ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
    ("http://127.5.6.7:8080/", "127.5.6.7 is a loopback address"),
    ("http://127.0.0.1./", "127.0.0.1 is a loopback address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
    ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
    ("http://240.0.0.1/", "240.0.0.1 is a reserved address"),
    ("http://255.255.255.255/", "255.255.255.255 is"),
    ("http://100.64.0.1/", "100.64.0.1 is a shared address"),
    ("http://100.127.255.254/", "is a shared address"),
    ("http://192.0.2.10/", "192.0.2.10 is"),
    ("http://198.18.0.1/", "198.18.0.1 is"),
    ("http://[::1]/", "::1 is a loopback address"),
    ("http://[::]/", ":: is an unspecified address"),
    ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ("http://[fc00::1]/", "fc00::1 is a private address"),
    ("http://[fd12:3456::1]/", "is a private address"),
    ("http://[fec0::1]/", "fec0::1 is a site-local address"),
    ("http://[ff02::1]/", "ff02::1 is a multicast address"),
    ("http://[::ffff:127.0.0.1]/", "a loopback address (an IPv4-mapped form of 127.0.0.1)"),
    ("http://[::ffff:10.0.0.1]/", "a private address (an IPv4-mapped form of 10.0.0.1)"),
    ("http://[::ffff:169.254.169.254]/", "link-local address (an IPv4-mapped form"),
    ("http://[2002:7f00:1::]/", "a loopback address (a 6to4 form of 127.0.0.1)"),
    ("http://[2002:a9fe:a9fe::]/", "a link-local address (a 6to4 form of 169.254.169.254)"),
    ("http://[64:ff9b::7f00:1]/", "a loopback address (a NAT64 form of 127.0.0.1)"),
    ("http://[64:ff9b::a00:5]/", "a private address (a NAT64 form of 10.0.0.5)"),
    ("http://[::127.0.0.1]/", "is a reserved address"),
    ("http://2130706433/", "'2130706433' is not a plain address"),
    ("http://0x7f000001/", "'0x7f000001' is not a plain address"),
    ("http://0x7f.1/", "'0x7f.1' is not a plain address"),
    ("http://127.1/", "'127.1' is not a plain address"),
    ("http://0177.0.0.1/", "'0177.0.0.1' is not a plain address"),
    ("http://010.0.0.1/", "is not a plain address"),
    ("http://1.2.3.4.5/", "is not a plain address"),
    ("http://localhost/", "localhost resolves to 127.0.0.1, a loopback address"),
    ("http://LocalHost.:8080/", "localhost resolves to 127.0.0.1, a loopback address"),
    ("http://nothing-here.invalid/", "nothing-here.invalid does not resolve"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_refused_urls_say_why(url: str, reason: str) -> None:
    with pytest.raises(OutboundRefused) as refused:
        check_url(url, ())
    assert reason in refused.value.reason
    assert str(refused.value) == f"URL refused: {refused.value.reason}"


@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_a_post_to_a_refused_url_sends_nothing(url: str, reason: str) -> None:
    with pytest.raises(OutboundRefused):
        post(url, b"{}", {}, timeout=2.0, allow=())


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/hook",
        "https://8.8.8.8:8443/x?y=1",
        "http://[2606:4700:4700::1111]/",
        # A public address seen through the well-known NAT64 prefix (an IPv6-only network).
        "http://[64:ff9b::808:808]/",
    ],
)
def test_public_addresses_pass(url: str) -> None:
    check_url(url, ())


@pytest.mark.parametrize(
    ("url", "allow"),
    [
        ("http://127.0.0.1:9/", ("127.0.0.1",)),
        ("http://10.1.2.3/", ("10.0.0.0/8",)),
        ("http://[::1]:8080/", ("::1",)),
        ("http://[::1]/", ("[::1]",)),
        ("http://[fd00::5]/", ("fd00::/8",)),
        ("http://localhost:8000/", ("localhost",)),
        ("http://LOCALHOST.:8000/", ("localhost",)),
        ("http://localhost/", ("127.0.0.0/8", "::1")),
    ],
)
def test_the_allow_list_lets_private_hosts_through(url: str, allow: tuple[str, ...]) -> None:
    check_url(url, allow)


def test_the_allow_list_allows_nothing_more() -> None:
    with pytest.raises(OutboundRefused, match=r"10.0.0.1 is a private address"):
        check_url("http://10.0.0.1/", LOOPBACK)
    with pytest.raises(OutboundRefused, match=r"loopback"):
        check_url("http://127.0.0.2/", LOOPBACK)
    # An allowed host still needs an allowed scheme and no credentials.
    with pytest.raises(OutboundRefused, match=r"scheme"):
        check_url("ftp://127.0.0.1/", LOOPBACK)
    with pytest.raises(OutboundRefused, match=r"password"):
        check_url("http://a:b@127.0.0.1/", LOOPBACK)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with receiving() as running:
        yield running


def test_a_post_arrives_with_its_body_and_headers(receiver: Receiver) -> None:
    answer = post(
        receiver.url("/hook?x=1"),
        b'{"a": 1}',
        {"Content-Type": "application/json", "X-Extra": "yes"},
        timeout=5.0,
        allow=LOOPBACK,
    )
    assert answer.status == 200
    assert answer.body == b"ok"
    assert answer.headers["content-length"] == "2"
    [got] = receiver.wait_for(1)
    assert (got.method, got.path, got.body) == ("POST", "/hook?x=1", b'{"a": 1}')
    assert got.header("Host") == f"127.0.0.1:{receiver.port}"
    assert got.header("Content-Type") == "application/json"
    assert got.header("X-Extra") == "yes"
    assert got.header("Content-Length") == "8"


def test_the_receiver_is_refused_without_the_allow_list(receiver: Receiver) -> None:
    with pytest.raises(OutboundRefused, match=r"loopback"):
        post(receiver.url(), b"", {}, timeout=5.0, allow=())
    with pytest.raises(OutboundRefused, match=r"localhost resolves to"):
        post(receiver.url(host="localhost"), b"", {}, timeout=5.0, allow=())
    assert receiver.requests == []


def test_an_allowed_name_is_reached_with_its_host_header(receiver: Receiver) -> None:
    # localhost may resolve to ::1 first, where nothing listens: the next address answers.
    post(receiver.url(host="localhost"), b"x", {}, timeout=5.0, allow=("localhost",))
    [got] = receiver.wait_for(1)
    assert got.header("Host") == f"localhost:{receiver.port}"


def test_an_error_status_is_an_outbound_error(receiver: Receiver) -> None:
    receiver.status = 404
    with pytest.raises(OutboundError, match=r"answered HTTP 404") as failed:
        post(receiver.url(), b"", {}, timeout=5.0, allow=LOOPBACK)
    assert failed.value.status == 404
    receiver.status = 503
    with pytest.raises(OutboundError) as failed:
        post(receiver.url(), b"", {}, timeout=5.0, allow=LOOPBACK)
    assert failed.value.status == 503


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_redirects_are_not_followed(receiver: Receiver, status: int) -> None:
    receiver.status = status
    receiver.location = "/elsewhere"
    with pytest.raises(OutboundError, match=r"redirects are not followed") as failed:
        post(receiver.url(), b"", {}, timeout=5.0, allow=LOOPBACK)
    assert failed.value.status == status
    assert [request.path for request in receiver.requests] == ["/hook"]


def test_the_body_read_is_capped(receiver: Receiver) -> None:
    receiver.answer = b"z" * (outbound.MAX_BODY * 2)
    answer = post(receiver.url(), b"", {}, timeout=5.0, allow=LOOPBACK)
    assert len(answer.body) == outbound.MAX_BODY


def test_a_server_that_never_answers_times_out(receiver: Receiver) -> None:
    receiver.hang = True
    started = time.monotonic()
    with pytest.raises(OutboundError, match=r"did not answer within 0.5 s") as failed:
        post(receiver.url(), b"", {}, timeout=0.5, allow=LOOPBACK)
    assert failed.value.status is None
    assert time.monotonic() - started < 5
    receiver.wait_for(1)


def test_a_trickled_answer_keeps_to_the_whole_timeout(receiver: Receiver) -> None:
    # Each byte comes well within the timeout; the answer as a whole does not.
    receiver.trickle = True
    receiver.trickle_gap = 0.1
    started = time.monotonic()
    with pytest.raises(OutboundError, match=r"did not answer within 1 s"):
        post(receiver.url(), b"", {}, timeout=1.0, allow=LOOPBACK)
    assert time.monotonic() - started < 4


def test_a_refused_connection_is_an_outbound_error() -> None:
    with socket.socket() as placeholder:
        placeholder.bind(("127.0.0.1", 0))
        port = placeholder.getsockname()[1]
    with pytest.raises(OutboundError, match=r"refused the connection") as failed:
        post(f"http://127.0.0.1:{port}/", b"", {}, timeout=5.0, allow=LOOPBACK)
    assert failed.value.status is None


Resolver = Callable[..., list[Any]]


def _fake_dns(
    monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[list[str]]]
) -> dict[str, int]:
    """Make each name in ``answers`` resolve to its next list of addresses (the last one
    repeats), as a rebinding DNS server would; answer how often each was asked."""
    real: Resolver = socket.getaddrinfo
    asked = dict.fromkeys(answers, 0)

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in answers:
            return real(host, port, *args, **kwargs)
        turn = answers[name][min(asked[name], len(answers[name]) - 1)]
        asked[name] += 1
        out = []
        for address in turn:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, int(port), 0, 0) if ":" in address else (address, int(port))
            out.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
        return out

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def test_the_address_checked_is_the_address_connected_to(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name first resolves to the (allowed) receiver, then to the metadata service: a
    # post looks it up once, checks that answer and connects to it.
    asked = _fake_dns(monkeypatch, {"rebind.test": [["127.0.0.1"], ["169.254.169.254"]]})
    post(receiver.url(host="rebind.test"), b"pinned", {}, timeout=5.0, allow=LOOPBACK)
    [got] = receiver.wait_for(1)
    assert got.body == b"pinned"
    assert got.header("Host") == f"rebind.test:{receiver.port}"
    assert asked["rebind.test"] == 1
    # Checked beforehand, the name now answers the metadata service: the post refuses it,
    # whatever an earlier check found.
    with pytest.raises(OutboundRefused, match=r"rebind.test resolves to 169.254.169.254"):
        post(receiver.url(host="rebind.test"), b"", {}, timeout=5.0, allow=LOOPBACK)
    assert len(receiver.requests) == 1


def test_every_address_a_name_resolves_to_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_dns(monkeypatch, {"mixed.test": [["127.0.0.1", "10.0.0.7"]]})
    with pytest.raises(OutboundRefused, match=r"mixed.test resolves to 10.0.0.7, a private"):
        check_url("http://mixed.test/", LOOPBACK)
    _fake_dns(monkeypatch, {"mapped.test": [["::ffff:169.254.169.254"]]})
    with pytest.raises(OutboundRefused, match=r"IPv4-mapped form of 169.254.169.254"):
        check_url("http://mapped.test/", ())


def test_https_checks_the_certificate_against_the_urls_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server_tls, client_tls = self_signed(tmp_path, "hooks.test")
    _fake_dns(monkeypatch, {"hooks.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})
    with receiving(server_tls) as receiver:
        url = receiver.url(host="hooks.test", scheme="https")
        answer = post(url, b"secret", {}, timeout=5.0, allow=LOOPBACK, tls=client_tls)
        assert answer.status == 200
        [got] = receiver.wait_for(1)
        assert got.body == b"secret"
        assert got.header("Host") == f"hooks.test:{receiver.port}"
        assert receiver.server_names == ["hooks.test"]
        # The same server under a name its certificate does not carry.
        other = receiver.url(host="other.test", scheme="https")
        with pytest.raises(OutboundError, match=r"TLS with other.test failed"):
            post(other, b"", {}, timeout=5.0, allow=LOOPBACK, tls=client_tls)
        # The system's trust does not know this certificate.
        with pytest.raises(OutboundError, match=r"TLS with hooks.test failed"):
            post(url, b"", {}, timeout=5.0, allow=LOOPBACK)
        assert len(receiver.requests) == 1
