"""The nightly history store: every night's run and the life of every finding (SQLite or
PostgreSQL through SQLAlchemy Core; the schema is kept by Alembic migrations)."""
