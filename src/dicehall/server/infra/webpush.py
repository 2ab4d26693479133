"""Web Push: a message posted to a browser's push service (RFC 8030), its payload encrypted
for that browser (RFC 8291, ``aes128gcm``) and the post signed with the site's VAPID key
(RFC 8292).

The push service checks the ``Authorization: vapid t=JWT, k=KEY`` header against the key the
browser subscribed with (the ``applicationServerKey``, :attr:`VapidKey.public_b64`), so every
process of a site must sign with the same key. What a payload says is the domain's business
(``domain.notices.push_delivery``); this module only encrypts, signs and posts.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import http_ece  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from dicehall.server.infra import outbound

#: The largest plaintext one ``aes128gcm`` record of 4096 bytes holds (RFC 8291 section 4:
#: push services need accept no more than 4096 bytes of body; the header takes 86, the tag 16
#: and the padding delimiter 1).
MAX_PAYLOAD = 4096 - 86 - 16 - 1
#: How long a JWT is valid for (RFC 8292 allows at most 24 hours).
JWT_SECONDS = 12 * 3600
URGENCIES = ("very-low", "low", "normal", "high")

_P256_ORDER = int("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551", 16)
_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")
_BAD_KEY = (
    "the VAPID private key is not valid: give the 32-byte key in base64url "
    "(as `dicehall vapid` prints it) or a P-256 key in PEM"
)


def b64url(data: bytes) -> str:
    """``data`` in base64url without padding (as browsers and push services write keys)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """Bytes from base64url (or standard base64), padding optional; ValueError if not."""
    cleaned = text.strip().replace("+", "-").replace("/", "_").rstrip("=")
    if not re.fullmatch(r"[A-Za-z0-9_-]*", cleaned) or len(cleaned) % 4 == 1:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4))


class VapidKey:
    """The site's VAPID key pair (ECDSA on P-256)."""

    def __init__(self, private: ec.EllipticCurvePrivateKey) -> None:
        if not isinstance(private.curve, ec.SECP256R1):
            raise ValueError(_BAD_KEY + f" (this one is on {private.curve.name}, not P-256)")
        self._private = private
        numbers = private.private_numbers()
        self._private_b64 = b64url(numbers.private_value.to_bytes(32, "big"))
        self._public_b64 = b64url(
            private.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
            )
        )

    @classmethod
    def generate(cls) -> VapidKey:
        """A fresh random key pair."""
        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_private(cls, text: str) -> VapidKey:
        """The key pair of a private key: the raw 32-byte scalar in base64url (what
        ``dicehall vapid`` prints), a PEM, or a DER in base64; ValueError with one clear
        sentence otherwise."""
        text = text.strip()
        if not text:
            raise ValueError(_BAD_KEY + " (it is empty)")
        loaded: object
        if text.startswith("-----BEGIN"):
            try:
                loaded = serialization.load_pem_private_key(text.encode(), password=None)
            except (ValueError, TypeError) as exc:
                raise ValueError(_BAD_KEY + " (the PEM cannot be read)") from exc
        else:
            try:
                raw = unb64url(text)
            except ValueError as exc:
                raise ValueError(_BAD_KEY + " (it is not base64url)") from exc
            if len(raw) == 32:
                scalar = int.from_bytes(raw, "big")
                if not 0 < scalar < _P256_ORDER:
                    raise ValueError(_BAD_KEY + " (the number is out of range for P-256)")
                loaded = ec.derive_private_key(scalar, ec.SECP256R1())
            else:
                try:
                    loaded = serialization.load_der_private_key(raw, password=None)
                except (ValueError, TypeError) as exc:
                    raise ValueError(
                        _BAD_KEY + f" ({len(raw)} bytes where 32 were expected)"
                    ) from exc
        if not isinstance(loaded, ec.EllipticCurvePrivateKey):
            raise ValueError(_BAD_KEY + " (it is not an elliptic-curve key)")
        return cls(loaded)

    @property
    def private_b64(self) -> str:
        """The private key: the 32-byte scalar in base64url (``DICEHALL_VAPID_PRIVATE_KEY``)."""
        return self._private_b64

    @property
    def public_b64(self) -> str:
        """The public key, the uncompressed point in base64url: the browser's
        ``applicationServerKey`` and the ``k`` of the ``Authorization`` header."""
        return self._public_b64

    def jwt(self, claims: dict[str, object]) -> str:
        """``claims`` as an ES256-signed JWT (RFC 7515/7519, compact form)."""
        header = b64url(json.dumps({"typ": "JWT", "alg": "ES256"}).encode())
        body = b64url(json.dumps(claims, separators=(",", ":")).encode())
        signing_input = f"{header}.{body}".encode()
        r, s = decode_dss_signature(self._private.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return f"{header}.{body}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"

    def __repr__(self) -> str:
        return f"VapidKey(public={self._public_b64!r})"


@dataclass(frozen=True)
class PushTarget:
    """Where a browser receives pushes: its push service's URL and its keys (base64url):
    ``p256dh``, its P-256 public key, and ``auth``, its 16-byte secret."""

    endpoint: str
    p256dh: str
    auth: str


class PushFailed(Exception):
    """A push could not be delivered. ``permanent``: trying again cannot help; ``gone``: the
    subscription no longer exists (404 or 410) and should be dropped."""

    def __init__(
        self, message: str, *, permanent: bool = False, gone: bool = False, status: int | None
    ) -> None:
        super().__init__(message)
        self.permanent = permanent or gone
        self.gone = gone
        self.status = status


def origin_of(url: str) -> str:
    """The origin of ``url`` (``https://push.example``): the JWT's audience."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        raise ValueError(f"not an absolute URL: {url!r}")
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"https": 443, "http": 80}.get(scheme)
    return f"{scheme}://{host}" if port is None or port == default else f"{scheme}://{host}:{port}"


def topic_of(tag: str) -> str:
    """A ``Topic`` header (at most 32 base64url characters) for a notice's tag: a push
    service keeps only the latest undelivered message of a topic, so one game's notices
    collapse there as they do on the screen."""
    if _TOPIC.fullmatch(tag):
        return tag
    return b64url(hashlib.sha256(tag.encode()).digest())[:32]


def build_request(
    target: PushTarget,
    payload: bytes,
    key: VapidKey,
    subject: str,
    *,
    ttl: int,
    topic: str | None,
    urgency: str = "normal",
    now: float,
) -> tuple[dict[str, str], bytes]:
    """The headers and encrypted body of a push of ``payload`` to ``target``, signed with
    ``key`` at time ``now`` (seconds since the epoch). ValueError for a bad target or
    argument."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"a push payload holds at most {MAX_PAYLOAD} bytes, not {len(payload)}")
    if ttl < 0:
        raise ValueError("TTL must be 0 or more seconds")
    if urgency not in URGENCIES:
        raise ValueError(f"urgency must be one of {', '.join(URGENCIES)}")
    if topic is not None and not _TOPIC.fullmatch(topic):
        raise ValueError("a topic is 1 to 32 base64url characters")
    receiver = unb64url(target.p256dh)
    auth = unb64url(target.auth)
    # Checks the point is on the curve (ValueError otherwise).
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), receiver)
    if len(auth) != 16:
        raise ValueError("the subscription's auth secret must be 16 bytes")
    body: bytes = http_ece.encrypt(
        payload,
        salt=os.urandom(16),
        # A new key for each message (RFC 8291 section 3.1).
        private_key=ec.generate_private_key(ec.SECP256R1()),
        dh=receiver,
        auth_secret=auth,
        version="aes128gcm",
        rs=4096,
    )
    claims = {"aud": origin_of(target.endpoint), "exp": int(now) + JWT_SECONDS, "sub": subject}
    headers = {
        "Authorization": f"vapid t={key.jwt(claims)}, k={key.public_b64}",
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(ttl),
        "Urgency": urgency,
    }
    if topic is not None:
        headers["Topic"] = topic
    return headers, body


def send(
    target: PushTarget,
    payload: bytes,
    key: VapidKey,
    subject: str,
    *,
    ttl: int,
    topic: str | None,
    urgency: str = "normal",
    now: float,
    timeout: float,
    allow: Sequence[str],
) -> None:
    """Post ``payload`` to ``target`` (blocking). Raises :class:`PushFailed`: ``gone`` for
    404 and 410, ``permanent`` for a refused address, a redirect or another 4xx (408 and
    429 aside), temporary for 5xx, 408, 429, a timeout or a broken connection."""
    try:
        headers, body = build_request(
            target, payload, key, subject, ttl=ttl, topic=topic, urgency=urgency, now=now
        )
    except ValueError as exc:
        raise PushFailed(
            f"cannot push to this subscription: {exc}", permanent=True, status=None
        ) from exc
    host = urlsplit(target.endpoint).hostname or target.endpoint
    try:
        outbound.post(target.endpoint, body, headers, timeout=timeout, allow=allow)
    except outbound.OutboundRefused as exc:
        raise PushFailed(f"push endpoint refused: {exc}", permanent=True, status=None) from exc
    except outbound.OutboundError as exc:
        status = exc.status
        if status in (404, 410):
            raise PushFailed(
                f"the push service {host} answered {status}: the subscription has ended",
                gone=True,
                status=status,
            ) from exc
        if status is not None and 300 <= status < 500 and status not in (408, 429):
            raise PushFailed(
                f"the push service {host} refused the push ({status})",
                permanent=True,
                status=status,
            ) from exc
        what = f"answered {status}" if status is not None else f"could not be reached ({exc})"
        raise PushFailed(f"the push service {host} {what}", status=status) from exc


__all__ = [
    "MAX_PAYLOAD",
    "PushFailed",
    "PushTarget",
    "VapidKey",
    "b64url",
    "build_request",
    "origin_of",
    "send",
    "topic_of",
    "unb64url",
]
