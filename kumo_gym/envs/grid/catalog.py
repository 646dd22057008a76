"""Catalogue rows of this family (filled in by the family)."""
ENTRIES: list = []
