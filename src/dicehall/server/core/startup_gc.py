"""Start-up without the cyclic garbage collector, and what it built frozen afterwards.

Importing the site and building its routes makes hundreds of thousands of objects that live
as long as the process; the collector would scan them again and again while they are made
(about a tenth of a second of start-up). ``dicehall serve`` pauses it before it imports the
site, and the application's start-up resumes it once the services run, first moving every
object made so far out of the collector's reach for good (:func:`gc.freeze`), so later
collections skip them too.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the collector off until :func:`resume` (nothing happens if it is already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Freeze what start-up made and turn the collector back on, if :func:`pause` stopped it."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False
