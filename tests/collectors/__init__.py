"""Tests of live collection (collectors/, commands.py, cli/collect.py)."""
