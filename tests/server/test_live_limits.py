"""Against a real ``dicehall serve``: request heads too large or too slow, proxy headers."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.live import LiveServer
from tests.waiting import wait_until

API = "/api/v1"
HEADER_TIMEOUT = 1.5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server with a short header timeout and 2 log-in attempts a minute."""
    folder: Path = tmp_path_factory.mktemp("live-limits")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICEHALL_HEADER_TIMEOUT", str(HEADER_TIMEOUT))
        patch.setenv("DICEHALL_AUTH_RATE", "2")
        patch.delenv("DICEHALL_TRUSTED_PROXIES", raising=False)
        live = LiveServer(f"sqlite:///{folder}/site.sqlite3")
        live.start()
    try:
        yield live
    finally:
        live.stop()


def _connect(server: LiveServer) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return conn


def _read_all(conn: socket.socket, deadline: float = 10.0) -> bytes:
    """Everything the server sends until it closes the connection (or the deadline)."""
    conn.settimeout(deadline)
    chunks = []
    try:
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def test_a_one_megabyte_header_is_refused(server: LiveServer) -> None:
    conn = _connect(server)
    head = b"GET /api/v1/games/kinds HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1_000_000
    # The server may stop reading before the end: refused early, as it should.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        conn.sendall(head + b"\r\n\r\n")
    answer = _read_all(conn)
    conn.close()
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    # The server is fine afterwards.
    assert httpx2.get(f"{server.base}{API}/games/kinds", timeout=10).status_code == 200


def test_an_unfinished_long_head_is_refused_at_once(server: LiveServer) -> None:
    # The head never ends, so only the parser's own limit can refuse it (and it must do so
    # long before the header timeout).
    conn = _connect(server)
    started = time.monotonic()
    conn.sendall(b"GET /api/v1/games/kinds HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000)
    answer = _read_all(conn, deadline=HEADER_TIMEOUT - 0.5)
    conn.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert time.monotonic() - started < HEADER_TIMEOUT


def _queued(local: int, remote: int) -> tuple[int, int] | None:
    """The bytes in the send and the receive queue of the TCP socket on 127.0.0.1 from port
    ``local`` to port ``remote`` (Linux's /proc/net/tcp), or None if there is none."""
    ends = (f"0100007F:{local:04X}", f"0100007F:{remote:04X}")
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (fields[1], fields[2]) == ends:
            sending, receiving = fields[4].split(":")
            return int(sending, 16), int(receiving, 16)
    return None


def _read_by_server(conn: socket.socket, server: LiveServer) -> bool:
    """Whether the server process has read all that was sent on ``conn``: none of it waits
    for an acknowledgement here, nor in the server's socket to be read."""
    port = conn.getsockname()[1]
    here, there = _queued(port, server.port), _queued(server.port, port)
    return here is not None and there is not None and here[0] == 0 and there[1] == 0


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_unfinished_heads_do_not_grow_the_server(server: LiveServer) -> None:
    assert server.process is not None
    before = _rss_kib(server.process.pid)
    conns = [_connect(server) for _ in range(8)]
    chunk = b"a" * 65536
    for conn in conns:
        conn.settimeout(5)
        with contextlib.suppress(OSError):
            conn.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: ")
            for _ in range(64):  # 4 MiB each, if the server keeps reading
                conn.sendall(chunk)
    grown = _rss_kib(server.process.pid) - before
    for conn in conns:
        conn.close()
    assert grown < 16 * 1024, f"the server grew by {grown} KiB"


def test_too_many_headers_are_refused(server: LiveServer) -> None:
    headers = {f"x-h{n}": "1" for n in range(150)}
    response = httpx2.get(f"{server.base}{API}/games/kinds", headers=headers, timeout=10)
    assert response.status_code == 431
    assert response.json()["code"] == "headers_too_large"


def test_a_slow_header_sender_is_disconnected(server: LiveServer) -> None:
    conn = _connect(server)
    started = time.monotonic()
    conn.sendall(b"GET /api/v1/games/kinds HTTP/1.1\r\nHost: x\r\n")
    conn.settimeout(0.3)
    answer = b""
    closed_after = None
    # One header byte every 0.3 s: each arrives well within any idle timeout, but the
    # head as a whole never completes.
    while time.monotonic() - started < HEADER_TIMEOUT + 5:
        try:
            conn.sendall(b"X")
        except (BrokenPipeError, ConnectionResetError):
            closed_after = time.monotonic() - started
            break
        try:
            chunk = conn.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            closed_after = time.monotonic() - started
            break
        answer += chunk
        if not chunk:
            closed_after = time.monotonic() - started
            break
    conn.close()
    assert closed_after is not None, "the slow sender was never disconnected"
    assert HEADER_TIMEOUT - 0.5 <= closed_after <= HEADER_TIMEOUT + 3
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer


def test_a_silent_connection_is_closed(server: LiveServer) -> None:
    conn = _connect(server)
    started = time.monotonic()
    assert _read_all(conn, deadline=HEADER_TIMEOUT + 5) == b""
    assert time.monotonic() - started <= HEADER_TIMEOUT + 3
    conn.close()


def test_normal_requests_and_keep_alive_still_work(server: LiveServer) -> None:
    with httpx2.Client(base_url=server.base, timeout=10) as client:
        for _ in range(3):
            response = client.get(f"{API}/games/kinds")
            assert response.status_code == 200
            assert response.headers["x-frame-options"] == "DENY"
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        # A head that trickles in but completes in time is served: the server reads each
        # part before the next is sent.
        conn = _connect(server)
        for part in (b"GET /api/v1/games/kinds HTTP/1.1\r\n", b"Host: x\r\n", b"\r\n"):
            conn.sendall(part)
            wait_until(lambda: _read_by_server(conn, server), what="the server to read a part")
        conn.settimeout(10)
        assert conn.recv(64).startswith(b"HTTP/1.1 200 ")
        conn.close()


def _wrong_logins(base: str, forwarded: list[str]) -> list[int]:
    statuses = []
    for address in forwarded:
        response = httpx2.post(
            f"{base}{API}/auth/login",
            json={"user_id": "nobody", "password": "wrong password"},
            headers={"X-Forwarded-For": address},
            timeout=10,
        )
        statuses.append(response.status_code)
    return statuses


def test_x_forwarded_for_is_not_believed_by_default(server: LiveServer) -> None:
    # Every attempt counts for the connection's address, whatever the header says.
    forged = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
    assert _wrong_logins(server.base, forged) == [401, 401, 429]


def test_x_forwarded_for_is_believed_from_a_trusted_proxy(tmp_path: Path) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICEHALL_AUTH_RATE", "2")
        patch.setenv("DICEHALL_TRUSTED_PROXIES", "127.0.0.1")
        live = LiveServer(f"sqlite:///{tmp_path}/proxied.sqlite3")
        live.start()
    try:
        clients = ["203.0.113.1", "203.0.113.2", "203.0.113.3"]
        assert _wrong_logins(live.base, clients) == [401, 401, 401]
        assert _wrong_logins(live.base, ["203.0.113.9"] * 3) == [401, 401, 429]
    finally:
        live.stop()
