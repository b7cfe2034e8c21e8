"""A simulated-device lab: the devices of a snapshot served over SSH on 127.0.0.1 (asyncssh).

Used by the tests and by users trying fabriclint (`fabriclint lab serve`). See docs/collect.md.
"""
