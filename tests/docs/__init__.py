"""Tests of the documentation: the commands it shows."""
