"""The worked example of docs/site.md ("Scheme 3: decks and seeds"), every value printed.

Run ``python -m dicehall.fairness.deck_example``: a deck of four keys and one bag shuffle made
from the secret 0x66 x 32, bound to game 7, one seat's seed ``ab``; anyone can reproduce each
line with their own code from the docs' words.
"""

from __future__ import annotations

from dicehall.fairness import decks
from dicehall.fairness.chain import GENESIS, canonical, record_hash
from dicehall.fairness.merkle import audit_paths
from dicehall.fairness.seating import shuffle_by_dice

SECRET = bytes([0x66]) * 32
GAME = 7
KEYS = 4


def lines() -> list[str]:
    """The example, one ``name = value`` line each."""
    out: list[str] = []
    key0 = decks.dice_key(SECRET, 0)
    out.append(f"key 0, the seat key (secret 0x66 x 32) = {key0.hex()}")
    out.append(f"key leaf 0 = {decks.key_leaf(0, key0).hex()}")
    root, paths = audit_paths(decks.key_leaves(SECRET, KEYS), [2])
    out.append(f"keys root (4 keys) = {root.hex()}")
    out.append(f"path of key 2 = {[p.hex() for p in paths[2]]}")
    shuffles_root = decks.deck_roots(SECRET, KEYS, 1).shuffles_root
    assert shuffles_root is not None
    out.append(f"shuffle 0 colours = {decks.shuffle_colours(SECRET, 0)}")
    out.append(f"shuffles root (1 shuffle) = {shuffles_root.hex()}")
    deck = {"seq": 1, "kind": "deck", "deck": 1, "keys": KEYS, "root": root.hex(),
            "shuffles": 1, "shuffles_root": shuffles_root.hex(), "prev": GENESIS,
            "created_at": "2026-12-10T00:00:00+00:00"}  # fmt: skip
    out.append(f"deck record = {canonical(deck).decode()}")
    bound = {"seq": 2, "kind": "game", "game": GAME, "deck": 1, "first_key": 0,
             "first_shuffle": 0, "prev": record_hash(deck),
             "created_at": "2026-12-10T00:00:01+00:00"}  # fmt: skip
    out.append(f"game record = {canonical(bound).decode()}")
    out.append(f"game record hash = {record_hash(bound)}")
    seated = shuffle_by_dice(["ann", "bob", "cy"], decks.seat_faces(key0, 64))
    out.append(f"seat draw of ['ann', 'bob', 'cy'] with key 0 = {seated}")
    no_seed = decks.seed_mix([None, None])
    mix = decks.seed_mix([bytes([0xAB]), None])
    out.append(f"mix with no seeds (2 seats) = {no_seed.hex()}")
    out.append(f"mix with seat 0's seed ab = {mix.hex()}")
    key1 = decks.dice_key(SECRET, 1)
    out.append(f"key 1 = {key1.hex()}")
    faces = decks.roll_faces(key1, GAME, 1, mix, 5)
    out.append(f"roll 1 of game 7 (key 1), 5 dice, seed ab = {list(faces)}")
    out.append(f"the same without the seed = {list(decks.roll_faces(key1, GAME, 1, no_seed, 5))}")
    order = decks.drawing_order(GAME, 0, mix)
    out.append(f"drawing order of hand 0, seed ab = {order}")
    drawn = decks.drawn_colours(decks.shuffle_colours(SECRET, 0), order)
    out.append(f"hand 0's colours in drawing order = {drawn}")
    return out


def main() -> None:
    """Print the example."""
    for line in lines():
        print(line)


if __name__ == "__main__":
    main()
