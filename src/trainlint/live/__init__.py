"""Judging a run while it trains: the same registered rules, fed one record at a time."""

from .guard import Guard, StopPolicy

__all__ = ["Guard", "StopPolicy"]
