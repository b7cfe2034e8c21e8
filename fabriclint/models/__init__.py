"""Pydantic models: the contract between loaders, parsers, rules, drift and reporters."""
