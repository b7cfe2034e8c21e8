"""How OpenSM reads one opensm.conf value: C `strtoul` semantics, type widths, `TRUE`, `(null)`.

OpenSM never rejects a value: it reads what C's `strtoul(text, NULL, 0)` makes of it (trailing
text ignored, a leading 0 means octal, no digits means 0), truncates it to the option's C type,
and treats every boolean other than exactly `TRUE` as FALSE. `read_value` returns what OpenSM
uses and, when that differs from what the text plainly says, why (IB006).
"""

from __future__ import annotations

from dataclasses import dataclass

from fabriclint.platforms.opensm_keys import REDACTED, WIDTH_BITS, Spec

_ULONG_MAX = (1 << 64) - 1
_LONG_MAX = (1 << 63) - 1
_DIGITS = {8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}

Value = bool | int | str | None


@dataclass(frozen=True)
class Read:
    """A value as OpenSM uses it, and why that differs from the text (None when it does not)."""

    value: Value
    reset: str | None = None
    redacted: bool = False


def strtoul(text: str) -> tuple[int, bool, str]:
    """C strtoul(text, NULL, 0) on LP64: (unsigned value, negative sign seen, text consumed)."""
    body = text.lstrip()
    sign = body[:1] if body[:1] in "+-" else ""
    rest = body[len(sign) :]
    base, start = 10, 0
    if rest[:2].lower() == "0x" and rest[2:3] and rest[2] in _DIGITS[16]:
        base, start = 16, 2
    elif rest[:1] == "0":
        base = 8
    end = start
    while end < len(rest) and rest[end] in _DIGITS[base]:
        end += 1
    if end == start:
        return 0, False, ""
    magnitude = min(int(rest[start:end], base), _ULONG_MAX)
    negative = sign == "-"
    value = (-magnitude) & _ULONG_MAX if negative else magnitude
    return value, negative, sign + rest[:end]


def _truncate(value: int, kind: str) -> int:
    bits = WIDTH_BITS.get(kind)
    if bits is None:
        return value
    masked = value & ((1 << bits) - 1)
    if kind == "i32" and masked >= 1 << 31:
        masked -= 1 << 32
    return masked


def _strtol(text: str) -> int:
    value, negative, _ = strtoul(text)
    if not negative:
        return min(value, _LONG_MAX)
    magnitude = (-value) & _ULONG_MAX
    return -min(magnitude, _LONG_MAX + 1)


def read_number(text: str, kind: str) -> Read:
    """An integer option: the number OpenSM ends up with, and why it is not the one written."""
    raw = text.strip()
    parsed, _, used = strtoul(raw)
    value = _truncate(_strtol(raw) if kind == "i32" else parsed, kind)
    if not used:
        return Read(0, f"'{raw}' is not a number; OpenSM reads 0")
    if used != raw:
        return Read(value, f"OpenSM reads only '{used}' of '{raw}' and uses {value}")
    if value == _meant(raw):
        return Read(value)
    digits = raw.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and not _is_hex(raw):
        return Read(value, f"a leading 0 makes OpenSM read '{raw}' as octal: {value}")
    bits = WIDTH_BITS.get(kind, 64)
    return Read(value, f"{raw} does not fit the option's {bits}-bit field; OpenSM uses {value}")


def _is_hex(raw: str) -> bool:
    return raw.lstrip("+-")[:2].lower() == "0x"


def _meant(raw: str) -> int | None:
    """The number the text plainly says (decimal, or hex with 0x); None when it says none (an
    empty value, `#` left after a comment was cut: OpenSM still reads something from it)."""
    digits = raw.lstrip("+-")
    body, base = (digits[2:], 16) if _is_hex(raw) else (digits, 10)
    allowed = "0123456789abcdefABCDEF" if base == 16 else "0123456789"
    if not body or any(c not in allowed for c in body):
        return None
    number = int(body, base)
    return -number if raw.startswith("-") else number


def read_net64(text: str) -> Read:
    """A 64-bit key (GUIDs, keys, prefixes) as a 0x-prefixed 16-digit hex string."""
    raw = text.strip()
    parsed, _, used = strtoul(raw)
    value = f"0x{parsed:016x}"
    if used != raw or _meant(raw) != parsed:
        return Read(value, f"OpenSM reads '{raw}' as {value}")
    return Read(value)


def read_bool(text: str) -> Read:
    """OpenSM's booleans: exactly TRUE is true, anything else is FALSE."""
    raw = text.strip()
    if raw == "TRUE":
        return Read(True)
    if raw == "FALSE":
        return Read(False)
    return Read(False, f"OpenSM only accepts TRUE (upper case); '{raw}' means FALSE")


def read_value(spec: Spec, text: str) -> Read:
    """The value OpenSM uses for a key of `spec` written as `text` (quotes already stripped)."""
    if text.strip().lower() in REDACTED:
        return Read(None, redacted=True)
    if spec.kind == "bool":
        return read_bool(text)
    if spec.kind == "net64":
        return read_net64(text)
    if spec.kind in WIDTH_BITS:
        return read_number(text, spec.kind)
    value = text.strip()
    return Read(None if value == "(null)" else value)


def clean_value(text: str) -> str:
    """OpenSM's clean_val: strip blanks, then one pair of matching surrounding quotes."""
    value = text.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return value
