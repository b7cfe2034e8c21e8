"""The shared alarm thread: login and handshake time limits without a thread per connection."""

from __future__ import annotations

import socket
import threading
import time
import types

import pytest

from fabriclint.collectors import netmiko_ssh
from fabriclint.collectors.netmiko_ssh import Alarms, _aead_first


def _alarm_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "alarms")


def test_actions_run_in_order_of_their_time_and_cancelled_ones_never(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    alarms = Alarms()
    ran: list[str] = []
    done = threading.Event()

    def late() -> None:
        ran.append("late")
        done.set()

    # The three are armed at one instant: on a loaded machine the test's thread could be
    # paused between two `start`s for longer than the 0.1 s between their times, and "late"
    # really was due first then. The alarm thread reads the real clock once they are armed.
    frozen = [time.monotonic()]
    clock = types.SimpleNamespace(monotonic=lambda: frozen[0] if frozen else time.monotonic())
    monkeypatch.setattr(netmiko_ssh, "time", clock)
    alarms.start(0.15, late)
    alarms.start(0.05, lambda: ran.append("early"))
    alarms.start(0.10, lambda: ran.append("cancelled")).cancel()
    frozen.clear()
    assert done.wait(5)
    assert ran == ["early", "late"]


def test_one_thread_for_many_alarms_and_none_left_when_all_are_done() -> None:
    alarms = Alarms()
    before = _alarm_threads()
    handles = [alarms.start(30, lambda: None) for _ in range(50)]
    assert _alarm_threads() == before + 1
    for handle in handles:
        handle.cancel()
        handle.cancel()  # paramiko cancels after every packet: a no-op after the first
    deadline = time.monotonic() + 5
    while _alarm_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _alarm_threads() == before
    fired = threading.Event()
    alarms.start(0.01, fired.set)  # a new alarm after the thread ended starts one again
    assert fired.wait(5)


def test_paramiko_handshake_limit_still_expires_without_a_timer_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    left, right = socket.socketpair()
    try:
        transport = _aead_first(left)
        packetizer = transport.packetizer
        # the alarms' clock stands still until the first check: a pause of the test's thread
        # past the 0.05 s limit (a loaded machine) made the limit expire before it
        frozen = [time.monotonic()]
        clock = types.SimpleNamespace(monotonic=lambda: frozen[0] if frozen else time.monotonic())
        monkeypatch.setattr(netmiko_ssh, "time", clock)
        packetizer.start_handshake(0.05)
        assert not any(isinstance(t, threading.Timer) for t in threading.enumerate())
        assert not packetizer.handshake_timed_out()
        frozen.clear()
        deadline = time.monotonic() + 30  # a fixed 0.3 s sleep stood for "the alarm has run"
        while not packetizer.handshake_timed_out() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert packetizer.handshake_timed_out()  # paramiko's own check, as its reads make it
        packetizer.complete_handshake()
        assert not packetizer.handshake_timed_out()
    finally:
        left.close()
        right.close()


def test_an_action_that_raises_does_not_stop_the_others() -> None:
    alarms = Alarms()
    fired = threading.Event()

    def broken() -> None:
        raise RuntimeError("a bug in one action")

    alarms.start(0.01, broken)
    alarms.start(0.05, fired.set)
    assert fired.wait(5)
