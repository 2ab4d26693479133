"""dicehall: five classic dice games with exact rules, fair dice and exact solvers."""

__version__ = "0.1.0"
