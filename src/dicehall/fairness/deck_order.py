"""Decks are bound in the order they were committed: a whole log's check (``verify-log``).

Each game takes the oldest deck of its kind (with shuffles or without) that no game has
yet; so, read from record 1, every ``game`` record must bind the first unbound deck of the
kind it names, and no deck twice. A site that skipped decks to reach one it liked would
have to bind the skipped ones to other games first, in the open.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from dicehall.fairness.chain import ChainBreak


def check_bindings(records: Sequence[Mapping[str, Any]]) -> ChainBreak | None:
    """The first binding out of order in a log read from its first record, or None."""
    waiting: dict[bool, deque[int]] = {False: deque(), True: deque()}
    kind_of: dict[int, bool] = {}
    bound: set[int] = set()
    for record in records:
        seq = record.get("seq")
        if record.get("kind") == "deck":
            deck = record.get("deck")
            if not isinstance(deck, int) or deck in kind_of:
                return ChainBreak(seq if isinstance(seq, int) else None, "a deck committed twice")
            bags = bool(record.get("shuffles"))
            kind_of[deck] = bags
            waiting[bags].append(deck)
        elif record.get("kind") == "game":
            deck = record.get("deck")
            where = seq if isinstance(seq, int) else None
            if not isinstance(deck, int) or deck not in kind_of:
                return ChainBreak(where, f"it binds deck {deck!r}, which no earlier record commits")
            if deck in bound:
                return ChainBreak(where, f"it binds deck {deck} again")
            queue = waiting[kind_of[deck]]
            if queue[0] != deck:
                return ChainBreak(
                    where,
                    f"it binds deck {deck} while deck {queue[0]}, committed before it, "
                    "was still unbound",
                )
            queue.popleft()
            bound.add(deck)
    return None
