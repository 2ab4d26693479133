"""Tests for Boatzee."""
