"""After a restore, move past everything the world may have seen since the backup.

A backup is a moment; the site went on after it: it served dice sets, bag shuffles and decks,
handed out game ids, and published log records, and finished games' proofs revealed dice.
A restored site that resumed from the backup's cursors would serve those dice again and fork
its public log. So a restore, in one transaction on the staged copy (:func:`move_past`):

- checks that the backup's log and the saved public log agree record for record (else they
  are two histories: refused), and that a checkpoint, when given, covers no more records than
  the saved log and has the same root;
- re-imports, verbatim, the saved log's records the backup lacks (they are public), so the
  log goes on without a fork;
- retires every set and shuffle that was unserved in the backup (it may have been served
  since) and every deck not yet bound to a game, and moves the cursors past every number the
  log names (committing a fresh batch where the log names numbers the copy has no rows for);
- moves the games' ids past every game the log names, and every other never-reused id (and
  the games', when the log names none) by a margin;
- records all this in the ``restores`` table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, cast

from sqlalchemy import Connection, Table, func, insert, inspect, select, update

from dicehall.fairness.chain import canonical
from dicehall.fairness.checkpoint import Checkpoint
from dicehall.server.core import sequences
from dicehall.server.core.clock import now
from dicehall.server.core.ids import DB_ID_MAX
from dicehall.server.core.models import Deck, GameRow, RestoreRow
from dicehall.server.domain.dice import fairlog, logtree
from dicehall.server.domain.dice.bags import BAG_CURSOR, SHUFFLES, BagPool
from dicehall.server.domain.dice.decks import DeckPool
from dicehall.server.domain.dice.pool import (
    CURSOR,
    DECK_KEYS,
    DECK_RESERVE,
    DECK_SHUFFLES,
    SETS,
    DicePool,
)
from dicehall.server.domain.saved_log import RestoreRefused, TwoHistories

DECKS = cast(Table, Deck.__table__)
GAMES = cast(Table, GameRow.__table__)
RESTORES = cast(Table, RestoreRow.__table__)
#: A deck retired by a restore is marked bound to this game id, which no game has: it is
#: never bound again (``DeckPool.bind`` takes only decks with no game).
RETIRED = 0
#: How far the ids of tables the log says nothing about move, unless told otherwise.
ID_MARGIN = 100_000


@dataclass
class RestoreReport:
    """What a restore moved past (the CLI's ``--json``, and the ``restores`` row)."""

    backup_log_size: int
    log_size: int
    imported_records: int
    checkpoint_size: int | None
    dice_cursor: tuple[int, int]
    shuffle_cursor: tuple[int, int]
    retired_sets: int
    retired_shuffles: int
    retired_decks: int
    #: Table -> (the highest id handed out in the backup, the highest counted now).
    ids: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Games still in play in the backup (their moves since the backup are lost).
    live_games: int = 0
    #: Those of them that roll from decks (their next keys may have been used since).
    live_deck_games: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """Plain JSON."""
        data = asdict(self)
        data["dice_cursor"] = list(self.dice_cursor)
        data["shuffle_cursor"] = list(self.shuffle_cursor)
        data["ids"] = {table: list(pair) for table, pair in self.ids.items()}
        return data


def _all_records(conn: Connection) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while True:
        page = fairlog.records(conn, len(found) + 1)
        found.extend(page)
        if len(page) < fairlog.PAGE:
            return found


def _number_of(record: dict[str, Any]) -> int:
    """What the log's ``batch_id`` column holds for a record: the batch, or the deck
    (a deck's record and its binding to a game both name the deck)."""
    kind = record["kind"]
    return int(record["batch"] if kind in ("dice", "bags") else record["deck"])


def _compare(backup: Sequence[dict[str, Any]], saved: Sequence[dict[str, Any]]) -> None:
    for mine, theirs in zip(backup, saved, strict=False):
        if mine["hash"] != theirs["hash"]:
            raise TwoHistories(
                f"record {mine['seq']} of the backup's log differs from the saved log's: "
                "they are two histories (a backup of another site, or a forked log)"
            )


def _highest(records: Sequence[dict[str, Any]], kind: str, key: str, extent: bool) -> int:
    values = [
        int(r[key]) + (int(r["size"]) - 1 if extent else 0) for r in records if r["kind"] == kind
    ]
    return max(values, default=0)


def move_past(
    conn: Connection,
    *,
    source: str,
    saved_log: list[dict[str, Any]] | None,
    checkpoint: Checkpoint | None,
    nothing_published_since: bool,
    dice_batch_size: int,
    bag_batch_size: int,
    id_margin: int = ID_MARGIN,
) -> RestoreReport:
    """Make the restored database at ``conn`` (migrated, in one transaction) safe to serve
    from; see the module's docstring. Raises :class:`RestoreRefused`, changing nothing that
    the caller's rollback does not undo."""
    backup_log = _all_records(conn)
    world = _world_log(backup_log, saved_log, checkpoint, nothing_published_since)
    nb = len(backup_log)
    imported = world[nb:]
    _import(conn, imported)
    if (
        checkpoint is not None
        and checkpoint.size > 0
        and logtree.root(conn, checkpoint.size) != checkpoint.root
    ):
        raise TwoHistories(
            f"the checkpoint's root is not the root of the log's first {checkpoint.size} "
            "records: the checkpoint and this log are two histories"
        )

    ids = {
        table: (sequences.last_id(conn, table), sequences.move_past(conn, table, floor))
        for table, floor in (
            ("dice_batches", _highest(world, "dice", "batch", extent=False)),
            ("bag_batches", _highest(world, "bags", "batch", extent=False)),
        )
    }
    dice_cursor, retired_sets = _retire_sets(conn, _highest(world, "dice", "first", extent=True))
    shuffle_cursor, retired_shuffles = _retire_shuffles(
        conn, _highest(world, "bags", "first", extent=True)
    )
    if dice_cursor[1] > _max_id(conn, SETS) + 1:
        # The log names sets this copy has no rows for: the next batch starts after them.
        DicePool(dice_batch_size)._new_batch(conn, dice_cursor[1])
    if shuffle_cursor[1] > _max_id(conn, SHUFFLES) + 1:
        BagPool(bag_batch_size)._new_batch(conn, shuffle_cursor[1])
    retired_decks = _retire_decks(conn, imported)
    _log_retirements(conn)
    warnings: list[str] = []
    ids.update(_move_ids(conn, _highest(world, "game", "game", extent=False), id_margin, warnings))
    live, on_decks = _live_games(conn, warnings)
    report = RestoreReport(
        backup_log_size=nb,
        log_size=fairlog.length(conn),
        imported_records=len(imported),
        checkpoint_size=None if checkpoint is None else checkpoint.size,
        dice_cursor=dice_cursor,
        shuffle_cursor=shuffle_cursor,
        retired_sets=retired_sets,
        retired_shuffles=retired_shuffles,
        retired_decks=retired_decks,
        ids=ids,
        live_games=live,
        live_deck_games=on_decks,
        warnings=warnings,
    )
    conn.execute(
        insert(RESTORES).values(
            restored_at=now(),
            source=source[-300:],
            backup_log_size=nb,
            log_size=report.log_size,
            details=json.dumps(report.as_json(), sort_keys=True),
        )
    )
    return report


def _world_log(
    backup_log: list[dict[str, Any]],
    saved_log: list[dict[str, Any]] | None,
    checkpoint: Checkpoint | None,
    nothing_published_since: bool,
) -> list[dict[str, Any]]:
    """The log as far as the world has seen it: the backup's, then the saved log's newer
    records; refused where the evidence is missing, older than the backup, or another
    history."""
    nb = len(backup_log)
    if saved_log is None and checkpoint is None and not nothing_published_since:
        raise RestoreRefused(
            f"the backup's public log ends at record {nb}; the site may have published more "
            "since (it does whenever it commits dice or starts a game), and a restored site "
            "would then serve dice that published proofs revealed and fork its log. Give the "
            "newest saved copy of GET /api/v1/fairness/log with --log FILE (and the latest "
            "checkpoint with --checkpoint FILE), or --nothing-published-since-backup if you are "
            "sure the site published nothing after this backup"
        )
    world = backup_log
    if saved_log is not None:
        _compare(backup_log, saved_log)
        world = backup_log + saved_log[nb:]
    known = max(
        len(saved_log) if saved_log is not None else 0,
        checkpoint.size if checkpoint is not None else 0,
    )
    if known < nb and not nothing_published_since:
        raise RestoreRefused(
            f"the saved log and checkpoint reach record {known}, but the backup's log holds "
            f"{nb}: they are older than the backup and say nothing of what was published "
            "after it; give the newest copy (--log FILE), or --nothing-published-since-backup"
        )
    if checkpoint is not None and checkpoint.size > len(world):
        where = "the saved log" if saved_log is not None else "the backup's log"
        raise RestoreRefused(
            f"the checkpoint covers {checkpoint.size} records but {where} holds {len(world)}: "
            "the log went on after it; give a saved copy of the log as new as the checkpoint "
            "(--log FILE)"
        )
    return world


def _import(conn: Connection, imported: Sequence[dict[str, Any]]) -> None:
    """Append the saved log's newer records verbatim, and their leaves to the log's tree."""
    if imported:
        conn.execute(
            insert(fairlog.LOG),
            [
                {
                    "seq": r["seq"],
                    "kind": r["kind"],
                    "batch_id": _number_of(r),
                    "body": canonical(r).decode("ascii"),
                    "hash": r["hash"],
                }
                for r in imported
            ],
        )
    logtree.catch_up(conn)


def _move_ids(
    conn: Connection, named_games: int, id_margin: int, warnings: list[str]
) -> dict[str, tuple[int, int]]:
    """Move every never-reused id but the batches' past what may have been handed out."""
    ids: dict[str, tuple[int, int]] = {}
    for name in (table.name for table in sequences.never_reuse_tables()):
        if name in ("dice_batches", "bag_batches", "restores"):
            continue
        if not sequences.can_move(conn, name):
            continue
        before = sequences.last_id(conn, name)
        floor = named_games if name == "games" and named_games else before + id_margin
        if floor > DB_ID_MAX // 2:
            warnings.append(f"{name}'s ids are past half their range ({floor})")
        ids[name] = (before, sequences.move_past(conn, name, min(floor, DB_ID_MAX - 1)))
    return ids


def _live_games(conn: Connection, warnings: list[str]) -> tuple[int, list[int]]:
    live = int(
        conn.execute(
            select(func.count()).select_from(GAMES).where(GAMES.c.status.in_(("waiting", "active")))
        ).scalar_one()
    )
    if live:
        warnings.append(
            f"{live} games were in play at the backup: they go on from where the backup left "
            "them (their moves since are lost)"
        )
    on_decks = _live_deck_games(conn)
    if on_decks:
        # One that moved after the backup would roll its next keys with the same seeds
        # again, and its players saw those rolls: each takes a fresh deck from there on.
        decks = DeckPool(DECK_KEYS, DECK_SHUFFLES, DECK_RESERVE)
        DicePool(1).hold_cursor(conn)
        for game_id in on_decks:
            decks.rebind(conn, game_id)
        shown = ", ".join(map(str, on_decks[:20])) + (", ..." if len(on_decks) > 20 else "")
        warnings.append(
            f"{len(on_decks)} of them roll from decks (games {shown}): each took a fresh deck "
            "from its next roll on, so none rolls dice it may have shown after the backup"
        )
    return live, on_decks


def _live_deck_games(conn: Connection) -> list[int]:
    if "next_key" not in GAMES.c:
        return []
    return [
        int(game_id)
        for game_id in conn.execute(
            select(GAMES.c.id)
            .where(GAMES.c.status.in_(("waiting", "active")), GAMES.c.next_key.is_not(None))
            .order_by(GAMES.c.id)
        ).scalars()
    ]


def _max_id(conn: Connection, table: Table) -> int:
    return int(conn.execute(select(func.max(table.c.id))).scalar() or 0)


def _retire_sets(conn: Connection, named: int) -> tuple[tuple[int, int], int]:
    cursor = conn.execute(select(CURSOR.c.next_set).where(CURSOR.c.id == 1)).scalar()
    start = 1 if cursor is None else int(cursor)
    end = max(start, named + 1, _max_id(conn, SETS) + 1)
    # Marked withheld as well, so that no retired set is ever shown (an old scheme-1 batch
    # is revealed whole once spent: a set it served since the backup may be a hidden pocket).
    retired = conn.execute(
        update(SETS).where(SETS.c.id >= start, SETS.c.game_id.is_(None)).values(withheld=True)
    ).rowcount
    if cursor is None:
        conn.execute(insert(CURSOR).values(id=1, next_set=end))
    else:
        conn.execute(update(CURSOR).where(CURSOR.c.id == 1).values(next_set=end))
    return (start, end), int(retired or 0)


def _retire_shuffles(conn: Connection, named: int) -> tuple[tuple[int, int], int]:
    cursor = conn.execute(select(BAG_CURSOR.c.next_shuffle).where(BAG_CURSOR.c.id == 1)).scalar()
    start = 1 if cursor is None else int(cursor)
    end = max(start, named + 1, _max_id(conn, SHUFFLES) + 1)
    retired = conn.execute(
        select(func.count()).select_from(SHUFFLES).where(SHUFFLES.c.id >= start)
    ).scalar_one()
    if cursor is None:
        conn.execute(insert(BAG_CURSOR).values(id=1, next_shuffle=end))
    else:
        conn.execute(update(BAG_CURSOR).where(BAG_CURSOR.c.id == 1).values(next_shuffle=end))
    return (start, end), int(retired)


def _log_retirements(conn: Connection) -> None:
    """Say in the log that every deck no game has is retired: a ``game`` record binding it
    to game 0, oldest first, so the log still shows decks taken in the order committed
    (``verify-log`` checks it) and no deck can ever be bound to a game after all."""
    records = _all_records(conn)
    bound = {int(r["deck"]) for r in records if r["kind"] == "game"}
    for record in records:
        if record["kind"] == "deck" and int(record["deck"]) not in bound:
            deck = int(record["deck"])
            fields = {"game": RETIRED, "deck": deck, "first_key": 0, "first_shuffle": 0}
            fairlog.append_record(conn, "game", deck, fields)


def _retire_decks(conn: Connection, imported: Sequence[dict[str, Any]]) -> int:
    """Retire every unbound deck (it may have been bound since), and keep a retired row for
    each deck the imported records name (its secret is lost; its id must not be reused)."""
    if not inspect(conn).has_table("decks"):
        return 0
    retired = conn.execute(
        update(DECKS).where(DECKS.c.game_id.is_(None)).values(game_id=RETIRED)
    ).rowcount
    have = {int(i) for i in conn.execute(select(DECKS.c.id)).scalars()}
    rows = [
        {
            "id": int(r["deck"]),
            "bags": int(r["shuffles"]) > 0,
            "secret": "",
            "keys": int(r["keys"]),
            "shuffles": int(r["shuffles"]),
            "root": r["root"],
            "shuffles_root": r["shuffles_root"],
            "log_seq": int(r["seq"]),
            "created_at": now(),
            "game_id": RETIRED,
        }
        for r in imported
        if r["kind"] == "deck" and int(r["deck"]) not in have
    ]
    if rows:
        conn.execute(insert(DECKS), rows)
        if conn.dialect.name == "postgresql" and sequences.can_move(conn, "decks"):
            sequences.move_past(conn, "decks", max(row["id"] for row in rows))
    return int(retired or 0) + len(rows)
