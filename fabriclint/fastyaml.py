"""libyaml (PyYAML's C loader) configured for YAML 1.2 core-schema scalars, as ruamel reads them.

PyYAML resolves YAML 1.1 scalars (`no`/`off` are booleans, `010` is octal, `1_000` an int); the
fabric files are YAML 1.2 (ruamel's default), so the implicit resolvers are replaced by 1.2 ones.
"""

from __future__ import annotations

import re
from typing import Any

_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_INT = re.compile(r"^(?:[-+]?[0-9][0-9_]*|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)

_LOADER: Any = None


def fast_loader() -> Any:
    """A CSafeLoader subclass with YAML 1.2 core resolvers, or None without libyaml."""
    global _LOADER  # noqa: PLW0603 -- built once, on first use (keeps --help from importing yaml)
    if _LOADER is not None:
        return _LOADER
    try:
        import yaml
        from yaml import CSafeLoader
    except ImportError:
        return None

    class CoreLoader(CSafeLoader):  # type: ignore[misc]
        """libyaml with YAML 1.2 core-schema implicit scalars."""

    CoreLoader.yaml_implicit_resolvers = {}
    for tag, pattern, first in (
        ("tag:yaml.org,2002:bool", _BOOL, "tTfF"),
        ("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:int", _INT, "-+0123456789"),
        ("tag:yaml.org,2002:float", _FLOAT, "-+0123456789."),
    ):
        CoreLoader.add_implicit_resolver(tag, pattern, list(first))
    CoreLoader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])
    CoreLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    _LOADER = CoreLoader
    del yaml
    return _LOADER


def _construct_int(loader: Any, node: Any) -> int:
    return core_int(loader.construct_scalar(node))


def core_int(text: str) -> int:
    """The integer a YAML 1.2 core-schema int scalar (`_INT`) stands for."""
    if text.startswith("0o"):
        return int(text[2:], 8)
    return int(text, 16) if text.startswith("0x") else int(text.replace("_", ""), 10)


def yaml_compose(text: str, loader: Any) -> Any:
    """The node tree of `text`."""
    import yaml

    return yaml.compose(text, Loader=loader)


def yaml_construct(node: Any, loader: Any) -> Any:
    """Plain Python data of a node tree `yaml_compose` made (what loading its text gives,
    without parsing the text a second time)."""
    constructor = loader("")
    try:
        return constructor.construct_document(node)
    finally:
        constructor.dispose()


def key_identity(node: Any) -> Any:
    """What tells a mapping key node apart from the others: its text, an integer's as decimal.

    `3`, `0x3`, `+3` and `03` are one key once constructed (the last one wins), so they must be
    seen as duplicates, as `3:` written twice is; `'3'` stays the same text as `3` (a model's
    integer keys read both as 3)."""
    value = getattr(node, "value", None)
    tag = getattr(node, "tag", None)
    if getattr(tag, "value", tag) == "tag:yaml.org,2002:int" and isinstance(value, str):
        try:
            return str(core_int(value))
        except ValueError:  # a form ruamel reads and this does not (0b1): its text, as before
            return value
    return value


def has_duplicate_keys(node: Any) -> bool:
    """Whether any mapping in the tree repeats a key (then the located slow path reports it)."""
    stack = [node]
    while stack:
        current = stack.pop()
        value = getattr(current, "value", None)
        if not isinstance(value, list):
            continue
        if current.id == "mapping":
            keys = [key_identity(k) for k, _ in value]
            if len(keys) != len(set(map(repr, keys))):
                return True
            stack.extend(v for _, v in value)
        else:
            stack.extend(value)
    return False
