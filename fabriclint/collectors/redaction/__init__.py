"""Table-driven redaction of collected outputs (see tables.py, the single place to add a kind).

base.py        Rule (kind, example, prefilter words, substitution), the pattern pieces
structured.py  secrets that are JSON/YAML keys (SNMP communities), OpenSM keys, PEM blocks
tables.py      one table per platform plus GENERIC, and the docs table
"""
