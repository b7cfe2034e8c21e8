"""The YAML key rules try their line patterns only on lines holding a colon: the same result
as the pattern over the whole text, and the same redaction."""

from __future__ import annotations

import re

import pytest

from fabriclint.collectors.redact import MARK, redact
from fabriclint.collectors.redaction import structured

TEXTS = [
    "",
    "no colon on any line\nneighbor FABRIC send-community\n",
    "password: SECRET",  # no line end at all
    "a\npassword: SECRET\n",
    "password: SECRET\r\nrole: admin\r\n",  # CR LF: the CR is part of the line
    ":\n: x\nx:\n  - key: v  \n",  # colons first, last, alone
    "! Command: show running-config\nsnmp-server community c ro\n   secret:  s  # c\n",
    "users:\n  admin:\n    password: |\n      SECRET\n    role: admin\n",
    "\n\n\npsk: a:b:c\n\n",
]


@pytest.mark.parametrize("text", TEXTS)
def test_colon_lines_give_what_the_pattern_gives_over_the_whole_text(text: str) -> None:
    def mark(found: re.Match[str]) -> str:
        return f"<{found['k']}={found['v']}|{found['t']}>"

    expected = structured._YAML_VALUE.sub(mark, text)
    assert structured._sub_lines(structured._YAML_VALUE, mark, text, ":") == expected


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (
            "! Command: show\nsend-community\nsecret: abc\n",
            f"! Command: show\nsend-community\nsecret: {MARK}\n",
        ),
        ("x\n  - key: abc  \nother: 1", f"x\n  - key: {MARK}  \nother: 1"),
        ("password:\n  hunter2\nrole: admin\n", f"password:\n  {MARK}\nrole: admin\n"),
        ("password: |\n  hunter2\nrole: admin\n", f"password: |\n  {MARK}\nrole: admin\n"),
        (
            "interface Ethernet1\n   description uplink\n",
            "interface Ethernet1\n   description uplink\n",
        ),
    ],
)
def test_yaml_secrets_are_still_redacted(text: str, redacted: str) -> None:
    assert redact(text, "eos") == redacted
