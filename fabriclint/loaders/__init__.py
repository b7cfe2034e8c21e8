"""Loaders for the fabric directory (YAML with line numbers)."""
