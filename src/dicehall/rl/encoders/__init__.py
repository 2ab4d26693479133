"""One module per game: ``encoding(seats, options) -> Encoding`` (see :mod:`..encoding`)."""
