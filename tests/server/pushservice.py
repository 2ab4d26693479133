"""A real Web Push service on 127.0.0.1 (RFC 8030), checking what it is sent as one would.

Each subscription it hands out (:meth:`PushService.new_subscription`, shaped like a
browser's ``PushSubscription.toJSON()``) has its own P-256 key pair and 16-byte auth secret,
as a browser's would. A push to it must carry ``Authorization: vapid t=JWT, k=KEY`` (RFC
8292): the JWT is ES256-signed by ``KEY`` (checked with cryptography), its ``aud`` is this
service's origin, its ``exp`` in the future and at most 24 hours ahead, and it has a
``sub``; a subscription made with an ``applicationServerKey`` takes pushes signed by that key
only. ``TTL`` and ``Content-Encoding: aes128gcm`` are required, and the body is decrypted
with the subscription's private key and auth secret (http_ece, RFC 8291). A push that passes
is recorded, with its headers and decrypted JSON, and answered 201; one that does not is
answered 400, 401, 403 or 413 and recorded in :attr:`PushService.refusals`. A subscription
can be ended (answered 410 from then on) or told to answer any status.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece  # type: ignore[import-untyped]
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.waiting import wait_until

#: The longest a VAPID JWT may be valid for (RFC 8292 section 2).
MAX_JWT_SECONDS = 24 * 3600


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class _Subscription:
    token: str
    private: ec.EllipticCurvePrivateKey
    auth: bytes
    #: The applicationServerKey it was made with (base64url), or None: any key is taken.
    server_key: str | None
    #: A status to answer every push with (410: the subscription has ended), or None.
    answer: int | None = None


@dataclass(frozen=True)
class Received:
    """A push the service took: to which subscription, with which headers, saying what."""

    token: str
    endpoint: str
    headers: dict[str, str]
    message: dict[str, Any]
    claims: dict[str, Any]


class Refusal(Exception):
    """A push refused, and why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class PushService:
    """The push service; use it as a context manager, or call :meth:`close`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: dict[str, _Subscription] = {}
        self.received: list[Received] = []
        #: ``(token, status, reason)`` of each push refused.
        self.refusals: list[tuple[str, int, str]] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                status = service._take(self.path, dict(self.headers.items()), body)
                self.send_response(status)
                if status == 201:
                    self.send_header("Location", f"{service.origin}/message/{secrets.token_hex(8)}")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args  # quiet

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        """Stop listening."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> PushService:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- subscriptions ---------------------------------------------------------------------

    def new_subscription(self, server_key: str | None = None) -> dict[str, Any]:
        """A new subscription, as a browser's ``PushSubscription.toJSON()`` gives it;
        ``server_key`` (base64url) is the ``applicationServerKey`` it was made with."""
        token = secrets.token_urlsafe(16)
        private = ec.generate_private_key(ec.SECP256R1())
        auth = secrets.token_bytes(16)
        with self._lock:
            self._subscriptions[token] = _Subscription(token, private, auth, server_key)
        public = private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": f"{self.origin}/push/{token}",
            "expirationTime": None,
            "keys": {"p256dh": _b64(public), "auth": _b64(auth)},
        }

    def _token(self, subscription: dict[str, Any] | str) -> str:
        endpoint = subscription if isinstance(subscription, str) else subscription["endpoint"]
        return str(endpoint).rsplit("/", 1)[-1]

    def end(self, subscription: dict[str, Any] | str) -> None:
        """From now on, pushes to ``subscription`` are answered 410 Gone."""
        self.answer(subscription, 410)

    def answer(self, subscription: dict[str, Any] | str, status: int | None) -> None:
        """Answer every push to ``subscription`` with ``status`` (None: check and take it)."""
        with self._lock:
            self._subscriptions[self._token(subscription)].answer = status

    # -- what arrived ----------------------------------------------------------------------

    def pushes(self, subscription: dict[str, Any] | str | None = None) -> list[Received]:
        """The pushes taken so far (to ``subscription`` only, if given)."""
        with self._lock:
            found = list(self.received)
        if subscription is None:
            return found
        token = self._token(subscription)
        return [push for push in found if push.token == token]

    def wait_for(self, count: int, *, timeout: float = 10.0) -> list[Received]:
        """Wait until at least ``count`` pushes were taken; all of them."""

        def enough() -> list[Received] | None:
            found = self.pushes()
            return found if len(found) >= count else None

        return wait_until(
            enough,
            timeout=timeout,
            what=f"{count} pushes at the push service",
        )

    # -- the checks ------------------------------------------------------------------------

    def _take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        found = re.fullmatch(r"/push/([A-Za-z0-9_-]+)", path)
        token = found.group(1) if found else ""
        with self._lock:
            subscription = self._subscriptions.get(token)
        if subscription is None:
            self._refuse(token, 404, "no such subscription")
            return 404
        if subscription.answer is not None:
            return subscription.answer
        lower = {name.lower(): value for name, value in headers.items()}
        try:
            claims = self._check_vapid(lower, subscription)
            message = self._check_message(lower, body, subscription)
        except Refusal as refused:
            self._refuse(token, refused.status, refused.reason)
            return refused.status
        with self._lock:
            self.received.append(Received(token, f"{self.origin}{path}", lower, message, claims))
        return 201

    def _refuse(self, token: str, status: int, reason: str) -> None:
        with self._lock:
            self.refusals.append((token, status, reason))

    def _check_vapid(self, headers: dict[str, str], subscription: _Subscription) -> dict[str, Any]:
        value = headers.get("authorization", "")
        scheme, _, rest = value.partition(" ")
        if scheme.lower() != "vapid":
            raise Refusal(401, "no vapid Authorization")
        params = {}
        for part in rest.split(","):
            name, _, text = part.strip().partition("=")
            params[name] = text
        jwt, key = params.get("t", ""), params.get("k", "")
        if not jwt or not key:
            raise Refusal(401, "the vapid Authorization needs t= and k=")
        if subscription.server_key is not None and key != subscription.server_key:
            raise Refusal(403, "signed with a key other than the subscription's")
        try:
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(key))
            head, payload, signature = jwt.split(".")
            header = json.loads(_unb64(head))
            claims = json.loads(_unb64(payload))
            raw = _unb64(signature)
        except ValueError as exc:
            raise Refusal(401, f"unreadable JWT or key: {exc}") from None
        if header.get("alg") != "ES256" or len(raw) != 64:
            raise Refusal(401, "the JWT is not ES256")
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            public.verify(der, f"{head}.{payload}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            raise Refusal(401, "the JWT's signature does not match k") from None
        if claims.get("aud") != self.origin:
            raise Refusal(401, f"aud {claims.get('aud')!r} is not {self.origin!r}")
        exp = claims.get("exp")
        moment = time.time()
        if not isinstance(exp, int) or exp <= moment:
            raise Refusal(401, "the JWT has expired")
        if exp > moment + MAX_JWT_SECONDS:
            raise Refusal(401, "the JWT is valid for more than 24 hours")
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise Refusal(401, "the JWT has no sub")
        return dict(claims)

    def _check_message(
        self, headers: dict[str, str], body: bytes, subscription: _Subscription
    ) -> dict[str, Any]:
        if not re.fullmatch(r"[0-9]+", headers.get("ttl", "")):
            raise Refusal(400, "TTL is required")
        if headers.get("content-encoding") != "aes128gcm":
            raise Refusal(415, "Content-Encoding must be aes128gcm")
        if len(body) > 4096:
            raise Refusal(413, "the payload is over 4096 bytes")
        try:
            plain = http_ece.decrypt(
                body,
                private_key=subscription.private,
                auth_secret=subscription.auth,
                version="aes128gcm",
            )
            message = json.loads(plain)
        except Exception as exc:  # http_ece raises several kinds
            raise Refusal(400, f"cannot decrypt the payload: {exc!r}") from None
        if not isinstance(message, dict):
            raise Refusal(400, "the payload is not a JSON object")
        return message


@contextmanager
def push_service() -> Iterator[PushService]:
    """A push service for the length of the block."""
    service = PushService()
    try:
        yield service
    finally:
        service.close()
