"""Pydantic models: the contract between loaders, parsers, rules, drift and reporters.

Field docstrings are read only when a JSON schema is made (`models/docs.py`): this runs before
any model class is built.
"""

from fabriclint.models.docs import defer

defer()
