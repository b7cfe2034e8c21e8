"""Redaction of collected text before it is written: password hashes, keys, SNMP communities.

Every substitution stays inside its line, so line numbers (finding sources) do not move. The
patterns are applied to every output of every platform (a CLI config, JSON or YAML alike):
a secret-looking value is removed wherever it appears; QoS statements never match.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MARK = "<redacted>"

# A value: a double-quoted string (Junos, NX-OS) or one bare token (never the `;` after it).
_VALUE = r'(?P<v>"(?:[^"\\\n]|\\.)*"|[^\s;"]+)'
# Words that follow `password` in non-secret settings (`no password strength-check`).
_NOT_SECRET = (
    r"(?!(?:strength-check|minimum|policy|encryption|reuse|prompt|aging|retry|required)\b)"
)
_SP = r"[ \t]+"

# (words one of which must appear in the text, pattern): the words are a cheap prefilter, so a
# host's large outputs are not scanned by patterns that cannot match them.
_CLI: list[tuple[tuple[str, ...], str]] = [
    # EOS/NX-OS/Junos: `secret sha512 $6$..`, `enable secret 5 ..`, `password 5 ..`,
    # Junos `encrypted-password "$6$.."`, `secret "$9$.."`
    (
        ("secret", "password"),
        rf"(?P<p>\b(?:secret|password)(?:{_SP}(?:sha512|sha256|md5|[0-9]{{1,2}}))?{_SP})"
        rf"{_NOT_SECRET}{_VALUE}",
    ),
    # `snmp-server community X ro`; Junos `community X {`
    (("community",), rf"(?P<p>\bcommunity{_SP}){_VALUE}"),
    # `snmp-server host H [vrf V] [traps|informs] version 2c COMMUNITY`
    (
        ("snmp-server",),
        rf"(?P<p>\bsnmp-server{_SP}host{_SP}.*?\bversion{_SP}(?:1|2c){_SP}){_VALUE}",
    ),
    # SNMPv3 user keys: `auth sha KEY`, `priv aes KEY`, `priv KEY`
    (("auth",), rf"(?P<p>\bauth{_SP}(?:md5|sha\S*){_SP}){_VALUE}"),
    (("priv",), rf"(?P<p>\bpriv{_SP}(?:(?:des|3des|aes\S*){_SP})?){_VALUE}"),
    # `tacacs-server [host H] key 7 X`, `radius-server key X`
    (
        ("tacacs", "radius"),
        rf"(?P<p>\b(?:tacacs|radius)\S*{_SP}(?:.*?{_SP})?key{_SP}(?:[0-9]{_SP})?){_VALUE}",
    ),
    # `ntp authentication-key 1 md5 X 7`
    (("ntp",), rf"(?P<p>\bntp{_SP}authentication-key{_SP}\S+{_SP}\S+{_SP}){_VALUE}"),
    # `ip ospf authentication-key 7 X`, Junos `authentication-key "$9$"`, `pre-shared-key ascii-text`
    (
        ("authentication-key", "key-string", "pre-shared-key"),
        rf"(?P<p>\b(?:authentication-key|key-string|pre-shared-key(?:{_SP}(?:ascii-text|hexadecimal))?)"
        rf"(?:{_SP}[0-9])?{_SP}){_VALUE}",
    ),
    (
        ("message-digest-key",),
        rf"(?P<p>\bmessage-digest-key{_SP}\S+{_SP}md5{_SP}(?:[0-9]{_SP})?){_VALUE}",
    ),
]
_CLI_RE = [(words, re.compile(p, re.IGNORECASE)) for words, p in _CLI]
_KEY_WORDS = ("pass", "secret", "community", "key", "psk")

# JSON `"passkey": "x"` and YAML `password: x`, by key name.
_KEY = r"(?:[\w-]*(?:password|passwd|passkey|passphrase)[\w-]*|[\w-]*secret[\w-]*|[\w-]*community[\w-]*|(?:[\w-]*[_-])?key|psk)"
_JSON_RE = re.compile(rf'(?P<p>"{_KEY}"\s*:\s*)"(?:[^"\\\n]|\\.)*"', re.IGNORECASE)
_YAML_RE = re.compile(
    rf"(?P<p>^[ \t]*-?[ \t]*{_KEY}[ \t]*:[ \t]+)(?P<v>[^\s#{{\[].*?)[ \t]*$", re.I | re.M
)
# Junos reversible `$9$`, crypt(3) hashes `$1$ $5$ $6$ $y$` anywhere else.
_HASH_RE = re.compile(r"(?P<q>\"?)\$(?:9|1|5|6|y|2[aby])\$[^\s\";]+(?P=q)")
# OpenSM management keys (opensm.conf): a value other than 0/1 is a site secret. OpenSM's defaults
# (m_key 0, sm_key/sa_key 1) are kept so IB005 can still tell "left at default"; the opensm
# parser reads the marker as "set, value unknown".
_IB_KEY = re.compile(r"^(?P<p>[ \t]*(?:m_key|sm_key|sa_key)[ \t]+)(?P<v>[^\s#]+)", re.MULTILINE)
# SONiC flat keys `"SNMP_COMMUNITY|public"`.
_FLAT_COMMUNITY = re.compile(r'"SNMP_COMMUNITY\|[^"]*"')


def _cli(match: re.Match[str]) -> str:
    value = match["v"]
    return match["p"] + (f'"{MARK}"' if value.startswith('"') else MARK)


def _ib_key(match: re.Match[str]) -> str:
    try:
        trivial = int(match["v"], 0) in (0, 1)
    except ValueError:
        trivial = False
    return match[0] if trivial else match["p"] + MARK


def _numbered(prefix: str) -> Callable[[re.Match[str]], str]:
    counter = iter(range(1, 1_000_000))
    return lambda _m: f'"{prefix}{MARK}-{next(counter)}"'


def _community_keys(text: str) -> str:
    """SONiC nested `"SNMP_COMMUNITY": {"public": {...}}`: community names are object keys."""
    out, pos = [], 0
    for start in re.finditer(r'"SNMP_COMMUNITY"\s*:\s*\{', text):
        if start.start() < pos:
            continue
        end, body = _redact_object_keys(text, start.end())
        out.append(text[pos : start.end()] + body)
        pos = end
    return "".join(out) + text[pos:]


def _redact_object_keys(text: str, i: int) -> tuple[int, str]:
    """Scan one JSON object body from `i`; replace its own keys. Returns (end, new body)."""
    depth, parts, n = 1, [], 0
    string = re.compile(r'"(?:[^"\\]|\\.)*"')
    while i < len(text) and depth > 0:
        ch = text[i]
        if ch == '"':
            end = string.match(text, i)
            j = end.end() if end else len(text)
            is_key = depth == 1 and text[j:].lstrip().startswith(":")
            n += is_key
            parts.append(f'"{MARK}-{n}"' if is_key else text[i:j])
            i = j
            continue
        depth += {"{": 1, "[": 1, "}": -1, "]": -1}.get(ch, 0)
        parts.append(ch)
        i += 1
    return i, "".join(parts)


def _yaml_community_keys(text: str) -> str:
    """NVUE `readonly-community:` maps community names (keys one level below) to settings."""
    lines = text.split("\n")
    parent: int | None = None
    child: int | None = None
    n = 0
    for index, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" "))
        if parent is not None and line.strip() and indent <= parent:
            parent = child = None
        if re.match(r"^\s*readonly-community(?:-v6)?:\s*$", line):
            parent, child = indent, None
            continue
        if parent is not None and line.strip():
            child = indent if child is None else child
            if indent == child and re.match(r"^\s*[^:#\s][^:]*:", line):
                n += 1
                lines[index] = re.sub(r"^(\s*)[^:]+:", rf"\g<1>'{MARK}-{n}':", line, count=1)
    return "\n".join(lines)


def redact(text: str) -> str:
    """`text` with every secret-looking value replaced by <redacted>; line count unchanged."""
    low = text.lower()
    for words, pattern in _CLI_RE:
        if any(word in low for word in words):
            text = pattern.sub(_cli, text)
    if any(word in low for word in _KEY_WORDS):
        text = _JSON_RE.sub(lambda m: f'{m["p"]}"{MARK}"', text)
        text = _YAML_RE.sub(lambda m: m["p"] + MARK, text)
    if "$" in text:
        text = _HASH_RE.sub(lambda m: f"{m['q']}{MARK}{m['q']}", text)
    if "_key" in text:
        text = _IB_KEY.sub(_ib_key, text)
    if "SNMP_COMMUNITY" in text:
        text = _FLAT_COMMUNITY.sub(_numbered("SNMP_COMMUNITY|"), text)
        text = _community_keys(text)
    if "readonly-community" in text:
        text = _yaml_community_keys(text)
    return text
