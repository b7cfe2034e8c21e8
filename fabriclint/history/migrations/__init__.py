"""Alembic migrations of the history store (run by `fabriclint.history.store.open_store`)."""
