"""Error replies told from outputs by their first lines: the same answer as splitting the whole
text, without splitting a large output."""

from __future__ import annotations

import pytest

from fabriclint.collectors.plan import _first_lines, command_error


def _reference(text: str, count: int) -> list[str]:
    return [line for line in text.splitlines() if line.strip()][:count]


BIG = "".join(f"interface Ethernet{i}\n   mtu 9214\n\n" for i in range(3000))

TEXTS = [
    "",
    "\n\n   \n",
    "% Invalid input\n",
    "\n\n% Invalid input (at token 1)\nmore\n",
    "x" * 10000 + "\nsecond\n",  # a first line longer than the first prefix
    "\n" * 5000 + "late\n",  # the first non-blank line past the first prefix
    "a\r\nb\rc\x0bd\u2028e\nf\ng\n",  # every line break str.splitlines knows
    " " * 4095 + "\r\nnext\n",  # a CR LF split at the first prefix's end
    BIG,
    "-bash: mlnx_qos: command not found\n",
    "line1\nline2\nline3\nline4\nline5\nline6\nline7\n",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("count", [1, 3, 6])
def test_first_lines_are_those_of_the_whole_text(text: str, count: int) -> None:
    assert _first_lines(text, count) == _reference(text, count)


CASES = [
    ("eos", "% Invalid input (at token 1: 'qos')\n", "% Invalid input (at token 1: 'qos')"),
    ("eos", "\n\n% Incomplete command\n", "% Incomplete command"),
    ("eos", BIG, None),
    ("eos", BIG + "% not at the start\n", None),
    ("mlnx-host", "-bash: mlnx_qos: command not found\n", "-bash: mlnx_qos: command not found"),
    (
        "mlnx-host",
        "sudo: a password is required\nsudo: a password is required\n",
        "sudo: a password is required",
    ),
    # six error-looking lines are an output (an error reply is at most five lines)
    ("mlnx-host", "Permission denied\n" * 6, None),
    ("mlnx-host", "Permission denied\n" * 5, "Permission denied"),
    ("mlnx-host", "Priority trust state: dscp\n", None),
]


@pytest.mark.parametrize(("platform", "text", "expected"), CASES)
def test_command_error(platform: str, text: str, expected: str | None) -> None:
    assert command_error(platform, text) == expected
