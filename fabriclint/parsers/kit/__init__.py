"""Pieces every parser family shares (see the vocabulary in docs/architecture.md)."""
