"""HTML pages. Every page is server-rendered; boards are driven by their ES modules.

Forms post back to their own page. Visitors' forms (sign up, log in) carry a double-submit
token (a cookie and the same value in a hidden field); members' forms carry their session's
CSRF token. A form with a mistake is shown again with a message next to each wrong field
and everything typed kept, passwords aside.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import Connection, select
from starlette.concurrency import run_in_threadpool

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.errors import InvalidInput, InvalidOptions
from dicehall.server import accounts, fairness, gameservice
from dicehall.server.api.errors import ApiError
from dicehall.server.api.games import run_db
from dicehall.server.clock import aware, now
from dicehall.server.models import AuthSession, User
from dicehall.server.pool import PoolEmpty
from dicehall.server.ratelimit import bucket
from dicehall.server.security import SESSION_COOKIE, digest, same
from dicehall.server.services import Services
from dicehall.server.web import forms
from dicehall.server.web.forms import Form
from dicehall.server.web.markdown import rules_html
from dicehall.server.web.render import page

router = APIRouter(include_in_schema=False)

T = TypeVar("T")

#: One line about each game for the home and new-game pages.
BLURBS = {
    "tenthousand": "Push your luck with six dice: bank your points or roll on and risk them.",
    "boatzee": "Five dice, three rolls, thirteen boxes; in one, two or three columns.",
    "boss": "Two players; the Boss rolls under the cup and calls come up or pick 'em up.",
    "holdem": "Texas hold'em with dice: two pocket dice, five community dice, chips.",
    "bullseye": "Throw at the Bull's Eye value, stop when you dare, and bet on it.",
}


@dataclass(frozen=True)
class Visitor:
    """Who is looking at a page, and the CSRF token their forms and scripts must send."""

    user: User | None
    csrf: str | None


def visitor(request: Request) -> Visitor:
    """The signed-in user and their session's CSRF token, or an anonymous visitor."""
    services: Services = request.app.state.services
    cookie = request.cookies.get(SESSION_COOKIE)
    if not cookie:
        return Visitor(None, None)
    with services.sessions() as db:
        row = db.scalar(select(AuthSession).where(AuthSession.id == digest(cookie)))
        if row is None or aware(row.expires_at) <= now():
            return Visitor(None, None)
        # Looked up here rather than through the API's checks: a form sends its CSRF token
        # in a field, which the form's handler compares with ``csrf``.
        user = db.get(User, row.user_pk)
        return Visitor(user, row.csrf_token if user is not None else None)


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def _to_login(request: Request) -> RedirectResponse:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/login?next={quote(target)}", status_code=303)


def _see(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


def _member_token_ok(who: Visitor, form: Form) -> bool:
    sent = form.get(forms.CSRF_FIELD)
    return who.csrf is not None and bool(sent) and same(sent, who.csrf)


EXPIRED = "This form had expired or came from elsewhere; please check it and send it again."


def _not_found(request: Request, who: Visitor, message: str) -> HTMLResponse:
    return page(
        request,
        "message.html",
        user=who.user,
        csrf=who.csrf,
        status_code=404,
        heading="Not found",
        message=message,
    )


# -- home, rules, fairness ---------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse)
def home(request: Request) -> HTMLResponse:
    """What the site is, the games, and how to start."""
    who = visitor(request)
    return page(request, "home.html", user=who.user, csrf=who.csrf, blurbs=BLURBS)


@router.get("/rules/{game}", response_class=HTMLResponse)
def rules(request: Request, game: str) -> HTMLResponse:
    """A game's rules as dicehall implements them."""
    who = visitor(request)
    try:
        entry = games.get(game)
    except InvalidInput:
        return _not_found(request, who, f"There is no game called {game!r}.")
    return page(
        request,
        "rules.html",
        user=who.user,
        csrf=who.csrf,
        game=entry.name,
        title=entry.game.title,
        body=rules_html(entry.name, entry.rules),
    )


@router.get("/fairness", response_class=HTMLResponse)
def fairness_page(request: Request) -> HTMLResponse:
    """Commitments, revealed batches, face counts and the chi-square test."""
    who = visitor(request)
    with _services(request).sessions() as db:
        report = fairness.fairness_report(db)
    counts = report["revealed"]["counts"]
    dice = report["revealed"]["dice"]
    return page(
        request,
        "fairness.html",
        user=who.user,
        csrf=who.csrf,
        report=report,
        faces=[(face, counts[str(face)]) for face in range(1, 7)],
        expected=dice / 6 if dice else 0,
        base=str(request.base_url).rstrip("/"),
    )


# -- accounts ----------------------------------------------------------------------------------


def _visitor_form(
    request: Request, template: str, form: Form, status_code: int = 200, **context: Any
) -> HTMLResponse:
    services = _services(request)
    token = forms.visitor_token(request)
    response = page(
        request,
        template,
        user=None,
        form=form,
        form_token=token,
        status_code=status_code,
        **context,
    )
    forms.set_visitor_token(response, token, services.settings.secure_cookies)
    return response


def _set_session(response: Response, services: Services, secret: str) -> None:
    settings = services.settings
    response.set_cookie(
        SESSION_COOKIE,
        secret,
        max_age=settings.session_days * 86400,
        path="/",
        secure=settings.secure_cookies,
        httponly=True,
        samesite="lax",
    )


def _limited(request: Request, kind: str, user_id: str) -> str | None:
    address = request.client.host if request.client else "unknown"
    wait = _services(request).limiter.hit(
        [bucket(kind, "ip", address), bucket(kind, "user", accounts.user_key(user_id))]
    )
    return None if wait is None else f"Too many attempts; please try again in {wait} seconds."


_SIGNUP_FIELDS = {
    "invalid_user_id": "user_id",
    "user_id_taken": "user_id",
    "invalid_password": "password",
    "invalid_display_name": "display_name",
}


@router.get("/signup", response_class=HTMLResponse)
def signup_form(request: Request, next: str | None = None) -> Response:
    """The sign-up form."""
    if visitor(request).user is not None:
        return _see("/status")
    return _visitor_form(request, "signup.html", Form({"next": forms.safe_next(next)}))


def _credentials(
    request: Request, form: Form, *, missing_id: str, missing_password: str
) -> tuple[str, str]:
    """The user id and password a visitor's form sent, with its token and blanks checked."""
    user_id = form.get("user_id").strip()
    password = form.get("password")
    if not forms.visitor_token_ok(request, form):
        form.problem = EXPIRED
    elif not user_id:
        form.error("user_id", missing_id)
    if not password:
        form.error("password", missing_password)
    return user_id, password


def _signed_in(form: Form, services: Services, cookie: str) -> Response:
    """On to where the form was going, with the new session's cookie."""
    response = _see(forms.safe_next(form.get("next")))
    _set_session(response, services, cookie)
    return response


@router.post("/signup", response_class=HTMLResponse)
async def signup(request: Request) -> Response:
    """Create an account from the form and sign in."""
    form = await forms.read_form(request, secret=("password",))
    services = _services(request)
    display = form.get("display_name").strip()
    user_id, password = _credentials(
        request, form, missing_id="choose a user id", missing_password="choose a password"
    )
    if form.ok:
        _check_signup(form, user_id, password, display)
    if form.ok:
        form.problem = _limited(request, "signup", user_id)
    if form.ok:
        try:
            signed = await run_in_threadpool(
                accounts.sign_up,
                services,
                user_id,
                password,
                display or None,
                request.cookies.get(SESSION_COOKIE),
            )
        except ApiError as exc:
            _report(form, exc, _SIGNUP_FIELDS)
        else:
            return _signed_in(form, services, signed.cookie)
    return _visitor_form(request, "signup.html", form, status_code=422)


def _check_signup(form: Form, user_id: str, password: str, display: str) -> None:
    """Every broken rule at once (the accounts service stops at the first)."""
    checks: list[tuple[str, Callable[[], object]]] = [
        ("user_id", lambda: accounts.check_user_id(user_id)),
        ("password", lambda: accounts.check_password(password, user_id)),
    ]
    if display:
        checks.append(("display_name", lambda: accounts.check_display_name(display)))
    for field, check in checks:
        try:
            check()
        except ApiError as exc:
            form.error(field, _sentence(exc.message))


def _report(form: Form, exc: ApiError, fields: Mapping[str, str]) -> None:
    """Put the service's refusal next to its field (by error code), else above the form."""
    field = fields.get(exc.code)
    if field:
        form.error(field, _sentence(exc.message))
    else:
        form.problem = _sentence(exc.message)


def _sentence(message: str) -> str:
    text = message.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "?", "!")) else ".")


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str | None = None) -> Response:
    """The log-in form."""
    if visitor(request).user is not None:
        return _see(forms.safe_next(next))
    return _visitor_form(request, "login.html", Form({"next": forms.safe_next(next)}))


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    """Sign in from the form."""
    form = await forms.read_form(request, secret=("password",))
    services = _services(request)
    user_id, password = _credentials(
        request, form, missing_id="Type your user id.", missing_password="Type your password."
    )
    if form.ok:
        form.problem = _limited(request, "login", user_id)
    if form.ok:
        try:
            signed = await run_in_threadpool(
                accounts.log_in, services, user_id, password, request.cookies.get(SESSION_COOKIE)
            )
        except ApiError as exc:
            if exc.code == "wrong_login":
                form.error("password", "Wrong user id or password.")
            else:
                form.problem = _sentence(exc.message)
        else:
            return _signed_in(form, services, signed.cookie)
    return _visitor_form(request, "login.html", form, status_code=422)


@router.post("/logout", response_class=HTMLResponse)
async def logout(request: Request) -> Response:
    """End this browser's session."""
    form = await forms.read_form(request)
    who = visitor(request)
    services = _services(request)
    if who.user is None:
        gone = _see("/")
        gone.delete_cookie(SESSION_COOKIE, path="/")  # an ended session's cookie, if any
        return gone
    if not _member_token_ok(who, form):
        return page(
            request,
            "message.html",
            user=who.user,
            csrf=who.csrf,
            status_code=403,
            heading="Log out",
            message="That log-out form had expired; use the Log out button above again.",
        )
    cookie = request.cookies.get(SESSION_COOKIE, "")
    await run_in_threadpool(accounts.log_out, services, digest(cookie))
    response = _see("/?signed_out=1")
    response.delete_cookie(
        SESSION_COOKIE, path="/", secure=services.settings.secure_cookies, httponly=True,
        samesite="lax",
    )  # fmt: skip
    return response


@router.get("/profile", response_class=HTMLResponse)
def profile_form(request: Request, saved: int = 0) -> Response:
    """My profile, with the form to edit it."""
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    form = Form({"display_name": who.user.display_name, "about": who.user.about})
    return page(request, "profile.html", user=who.user, csrf=who.csrf, form=form, saved=bool(saved))


_PROFILE_FIELDS = {"invalid_display_name": "display_name", "invalid_about": "about"}


@router.post("/profile", response_class=HTMLResponse)
async def profile_edit(request: Request) -> Response:
    """Save my display name and about text."""
    form = await forms.read_form(request)
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    for field, check in (
        ("display_name", accounts.check_display_name),
        ("about", accounts.check_about),
    ):
        try:
            check(form.get(field))
        except ApiError as exc:
            form.error(field, _sentence(exc.message))
    if not _member_token_ok(who, form):
        form.problem = EXPIRED
    elif form.ok:
        try:
            await run_in_threadpool(
                accounts.update_profile,
                _services(request),
                who.user,
                form.get("display_name"),
                form.get("about").replace("\r\n", "\n"),
            )
        except ApiError as exc:
            _report(form, exc, _PROFILE_FIELDS)
        else:
            return _see("/profile?saved=1")
    return page(request, "profile.html", user=who.user, csrf=who.csrf, form=form, status_code=422)


@router.get("/users/{user_id}", response_class=HTMLResponse)
def public_profile(request: Request, user_id: str) -> HTMLResponse:
    """Anyone's public profile."""
    who = visitor(request)
    with _services(request).sessions() as db:
        try:
            shown = accounts.find_user(db, user_id)
        except ApiError:
            return _not_found(request, who, "There is no user by that id.")
    return page(request, "user.html", user=who.user, csrf=who.csrf, shown=shown)


@router.get("/password", response_class=HTMLResponse)
def password_form(request: Request) -> Response:
    """The change-password form."""
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    return page(request, "password.html", user=who.user, csrf=who.csrf, form=Form())


@router.post("/password", response_class=HTMLResponse)
async def password_change(request: Request) -> Response:
    """Change my password; my other browser sessions end."""
    secret = ("old_password", "new_password", "confirm_password")
    form = await forms.read_form(request, secret=secret)
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    old, new, again = (form.get(name) for name in secret)
    if not _member_token_ok(who, form):
        form.problem = EXPIRED
    if not old:
        form.error("old_password", "Type your current password.")
    if not new:
        form.error("new_password", "Choose a new password.")
    elif new != again:
        form.error("confirm_password", "The two new passwords differ; type the same one twice.")
    if form.ok:
        form.problem = _limited(request, "password", who.user.user_id)
    done: str | None = None
    if form.ok:
        keep = digest(request.cookies.get(SESSION_COOKIE, ""))
        try:
            ended = await run_in_threadpool(
                accounts.change_password, _services(request), who.user, keep, old, new
            )
        except ApiError as exc:
            if exc.code == "wrong_password":
                form.error("old_password", "That is not your current password.")
            else:
                _report(form, exc, {"invalid_password": "new_password"})
        else:
            others = "session was" if ended == 1 else "sessions were"
            done = f"Your password is changed; {ended} other browser {others} signed out."
    form.values = {}  # passwords are never shown again
    return page(
        request,
        "password.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        done=done,
        status_code=200 if done else 422,
    )


# -- games -------------------------------------------------------------------------------------


def _write(services: Services, work: Callable[[Connection], T]) -> T:
    """A write transaction, topping the dice pool up once if it ran dry."""
    for attempt in range(2):
        try:
            with services.write_conn() as conn:
                return work(conn)
        except PoolEmpty:
            if attempt:
                raise
            services.pool.ensure_reserve(services.write_conn)
    raise AssertionError("unreachable")  # pragma: no cover


def _notify(
    services: Services, record: gameservice.GameRecord, seats: list[gameservice.SeatInfo]
) -> None:
    for user_pk, message in gameservice.pushes(record, seats):
        services.broker.publish(user_pk, message)


def _seat_label(seat: dict[str, Any]) -> str:
    if seat["open"]:
        return "open seat"
    if seat["bot"]:
        return f"bot ({seat['bot']})"
    return str(seat["user"])


def _describe_games(rows: list[dict[str, Any]], me: str | None) -> list[dict[str, Any]]:
    out = []
    for row in rows:
        try:
            title = games.get(row["game"]).game.title
        except InvalidInput:
            title = row["game"]
        others = [s for s in row["seats"] if me is None or s["user"] != me]
        if row["status"] == "waiting":
            state = "waiting for players"
        elif row["status"] == "finished":
            state = "finished"
        elif row["your_turn"]:
            state = "your turn"
        else:
            to_act = row["to_act"]
            seat = next((s for s in row["seats"] if s["seat"] == to_act), None)
            state = f"waiting for {_seat_label(seat)}" if seat else "in play"
        out.append(
            {
                **row,
                "title": title,
                "players": ", ".join(_seat_label(s) for s in others) or "nobody else",
                "state": state,
            }
        )
    return out


@router.get("/status", response_class=HTMLResponse)
def status_page(request: Request) -> Response:
    """My games, those waiting on me first, with links to the boards."""
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    user = who.user
    with _services(request).read_conn() as conn:
        rows = _describe_games(gameservice.my_games(conn, user), user.user_id)
    sections = [
        ("Waiting on you", [r for r in rows if r["your_turn"]]),
        (
            "Waiting on others",
            [r for r in rows if r["status"] == "active" and not r["your_turn"]],
        ),
        ("Waiting for players", [r for r in rows if r["status"] == "waiting"]),
        ("Finished", [r for r in rows if r["status"] == "finished"]),
    ]
    return page(
        request, "status.html", user=user, csrf=who.csrf, sections=sections, count=len(rows)
    )


@router.get("/new", response_class=HTMLResponse)
def new_pick(request: Request) -> Response:
    """Which game to start."""
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    return page(request, "new_pick.html", user=who.user, csrf=who.csrf, blurbs=BLURBS)


def _new_game_page(
    request: Request, who: Visitor, game: str, form: Form, status_code: int = 200
) -> HTMLResponse:
    entry = games.get(game)
    rows = forms.opponent_rows(game)
    return page(
        request,
        "new_game.html",
        user=who.user,
        csrf=who.csrf,
        form=form,
        game=entry.name,
        title=entry.game.title,
        blurb=BLURBS.get(entry.name, ""),
        options=forms.option_fields(entry.name),
        bots=sorted(entry.bots),
        rows=rows,
        min_opponents=entry.game.min_seats - 1,
        max_opponents=entry.game.max_seats - 1,
        status_code=status_code,
    )


def _default_new_game_form(game: str) -> Form:
    entry = games.get(game)
    values = {f"opt_{spec.name}": spec.default for spec in forms.option_fields(game)}
    values = {k: v for k, v in values.items() if v != ""}
    bot = "heuristic" if "heuristic" in entry.bots else sorted(entry.bots)[0]
    values["opp1"] = f"bot:{bot}"
    # Bull's Eye wants three players unless two seats are allowed.
    if entry.name == "bullseye":
        values["opp2"] = f"bot:{bot}"
    return Form(values)


@router.get("/new/{game}", response_class=HTMLResponse)
def new_game_form(request: Request, game: str) -> Response:
    """The form for a new game of ``game``: its options and the opponents."""
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    try:
        entry = games.get(game)
    except InvalidInput:
        return _not_found(request, who, f"There is no game called {game!r}.")
    return _new_game_page(request, who, entry.name, _default_new_game_form(entry.name))


@router.post("/new/{game}", response_class=HTMLResponse)
async def new_game(request: Request, game: str) -> Response:
    """Create the game and go to its board."""
    form = await forms.read_form(request)
    who = visitor(request)
    if who.user is None:
        return _to_login(request)
    try:
        entry = games.get(game)
    except InvalidInput:
        return _not_found(request, who, f"There is no game called {game!r}.")
    user = who.user
    services = _services(request)
    if not _member_token_ok(who, form):
        form.problem = EXPIRED
    specs = forms.seat_specs(entry.name, form)
    for row in range(1, forms.opponent_rows(entry.name) + 1):
        handle = form.get(f"user{row}").strip()
        if form.get(f"opp{row}") == "user" and handle.lower() == user.user_id.lower():
            form.error(f"user{row}", "That is you; invite someone else.")
    raw = forms.raw_options(entry.name, form)
    try:
        entry.game.options(raw)
    except InvalidOptions as exc:
        forms.option_error(entry.name, _sentence(str(exc)), form)
    if form.ok:
        try:
            record, seats = await run_db(
                services,
                _write,
                services,
                lambda conn: gameservice.create_game(
                    conn, services.pool, user, entry.name, raw, specs
                ),
            )
        except ApiError as exc:
            _place_seat_error(entry.name, exc, form)
        except (InvalidOptions, InvalidInput) as exc:
            form.problem = _sentence(str(exc))
        else:
            _notify(services, record, seats)
            return _see(f"/games/{record.id}")
    return _new_game_page(request, who, entry.name, form, status_code=422)


def _place_seat_error(game: str, exc: ApiError, form: Form) -> None:
    if exc.code == "unknown_user":
        for row in range(1, forms.opponent_rows(game) + 1):
            handle = form.get(f"user{row}").strip()
            if form.get(f"opp{row}") == "user" and repr(handle) in exc.message:
                form.error(f"user{row}", _sentence(exc.message))
                return
    if exc.code == "invalid_seats":
        form.error("opp1", _sentence(exc.message))
        return
    form.problem = _sentence(exc.message)


@router.get("/waiting", response_class=HTMLResponse)
def waiting_room(request: Request) -> HTMLResponse:
    """Open games anyone may join."""
    who = visitor(request)
    return _waiting_page(request, who)


def house_rules(kind: str, options: dict[str, object]) -> str:
    """The options of a game that differ from the defaults, or "standard rules"."""
    defaults = codec.encode(games.get(kind).game.options({}))
    changed = [
        f"{name.replace('_', ' ')} {value}"
        for name, value in options.items()
        if name != "type" and defaults.get(name) != value
    ]
    return ", ".join(changed) or "standard rules"


def _waiting_page(
    request: Request,
    who: Visitor,
    errors: dict[int, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    with _services(request).read_conn() as conn:
        rows = _describe_games(gameservice.open_games(conn), None)
    me = who.user.user_id if who.user else None
    for row in rows:
        row["mine"] = me is not None and any(s["user"] == me for s in row["seats"])
        row["creator"] = next((s["user"] for s in row["seats"] if s["user"]), None)
        row["open_count"] = sum(1 for s in row["seats"] if s["open"])
        row["house_rules"] = house_rules(row["game"], row["options"])
    return page(
        request,
        "waiting.html",
        user=who.user,
        csrf=who.csrf,
        rows=rows,
        errors=errors or {},
        status_code=status_code,
    )


@router.post("/waiting/{game_id}/join", response_class=HTMLResponse)
async def join(request: Request, game_id: int) -> Response:
    """Take the first open seat of a game from the waiting room."""
    form = await forms.read_form(request)
    who = visitor(request)
    if who.user is None:
        return _see(f"/login?next={quote('/waiting')}")
    user = who.user
    services = _services(request)
    if not _member_token_ok(who, form):
        return _waiting_page(request, who, {game_id: EXPIRED}, 422)

    def work(conn: Connection) -> tuple[gameservice.GameRecord, list[gameservice.SeatInfo]]:
        record = gameservice.fetch_game(conn, game_id, lock=True)
        return gameservice.join_game(conn, services.pool, user, record, None)

    try:
        record, seats = await run_db(services, _write, services, work)
    except ApiError as exc:
        return _waiting_page(request, who, {game_id: _sentence(exc.message)}, 409)
    _notify(services, record, seats)
    return _see(f"/games/{game_id}")


@router.get("/games/{game_id}", response_class=HTMLResponse)
def board(request: Request, game_id: int) -> HTMLResponse:
    """A game's board (its ES module does the drawing and the moves)."""
    who = visitor(request)
    services: Services = request.app.state.services
    with services.read_conn() as conn:
        try:
            record = gameservice.fetch_game(conn, game_id)
        except ApiError:
            return _not_found(request, who, f"There is no game {game_id}.")
    entry = gameservice.entry_of(record.kind)
    return page(
        request,
        "board.html",
        user=who.user,
        csrf=who.csrf,
        game_id=game_id,
        kind=record.kind,
        title=entry.game.title,
    )
