"""Games on the site, in parts: records, seating, play, bot turns, ending, reading.

A move runs in one transaction: load the game (locked), compare the client's version, check
the seat and the action, apply it, resolve chance from the dice pool, let bots at the table
act until a human must act, append the events, store the snapshot and the new version.
Callers import each name from the module that defines it.
"""
