"""Tests of the simulated-device lab (lab/, cli/lab.py)."""
