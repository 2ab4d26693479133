"""What a careless caller may put where a game wants a choice of dice (``Keep(...)``,
``SetAside(...)``): anything, faces of any type, and plain lists of small numbers."""

from __future__ import annotations

from hypothesis import strategies as st

_JUNK_FACE = st.one_of(
    st.none(), st.booleans(), st.floats(), st.text(max_size=2), st.integers(-2, 8)
)

#: A choice of dice as a careless caller may send it.
JUNK_DICE: st.SearchStrategy[object] = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(),
    st.text(max_size=3),
    st.lists(_JUNK_FACE, max_size=7).map(tuple),
    st.lists(st.integers(-2, 8), max_size=7),
)
