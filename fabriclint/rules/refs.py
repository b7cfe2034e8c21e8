"""QOS005/QOS006: named QoS objects (maps, profiles, policies) referenced but undefined, or unused."""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase

from fabriclint.models.finding import Finding
from fabriclint.models.state import (
    DeviceState,
    Reference,
)
from fabriclint.rules.base import Context, Rule
from fabriclint.rules.scope import (
    StrictOptions,
    names,
    ordered,
)

_PREDEFINED = (  # noqa: SIM905 -- one pattern per word beats eleven lines of list
    "class-default default-* *-default c-in-* c-out-* c-nq* c-8q-* best-effort "
    "expedited-forwarding assured-forwarding network-control"
).split()
"""Names platforms define themselves (NX-OS system classes/policies, Junos forwarding classes)."""


class DanglingReference(Rule["DanglingReference.Options"]):
    """A map, profile, policy, class or scheduler is referenced but never defined.

    Why: most platforms accept the reference and silently apply nothing (or a default), so the
    port runs without the QoS the operator believes it has. One finding per missing object, on
    its first reference. Option `predefined`: name patterns the platforms define themselves
    (class-default, NX-OS system classes and policies, Junos default forwarding classes).

    Failing (EOS)::

        interface Ethernet1
           service-profile ROCE_TYPO

    Passing::

        qos profile ROCE
        interface Ethernet1
           service-profile ROCE
    """

    class Options(StrictOptions):
        """Options of QOS005."""

        predefined: list[str] = list(_PREDEFINED)
        """Names (shell patterns) the platform defines itself; never reported."""

    code = "QOS005"
    name = "dangling-reference"
    severity = "error"
    summary = "A map, profile, policy, class or scheduler is referenced but never defined"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in ordered(ctx):
            for (kind, name), refs in self._dangling(state).items():
                yield self.finding(
                    state.name,
                    f"{kind} {name}",
                    f"references.{kind}.{name}",
                    f"{kind} {name} is referenced by {names([r.by for r in refs])} "
                    "but never defined",
                    expected="defined",
                    actual=None,
                    source=refs[0].source,
                )

    def _dangling(self, state: DeviceState) -> dict[tuple[str, str], list[Reference]]:
        defined = {(d.kind, d.name) for d in state.definitions}
        out: dict[tuple[str, str], list[Reference]] = {}
        for ref in state.references:
            builtin = any(fnmatchcase(ref.name, p) for p in self.options.predefined)
            if (ref.kind, ref.name) not in defined and not builtin:
                out.setdefault((ref.kind, ref.name), []).append(ref)
        return out


class UnusedDefinition(Rule["UnusedDefinition.Options"]):
    """A QoS map, profile or policy is defined and applied nowhere.

    Why: usually a leftover or a typo in the name that is applied instead (see QOS005); an unused
    profile also misleads whoever reads the configuration. Class maps are not reported (they are
    only used inside policies). Options: `kind_words` (kinds containing one of these words are
    checked: map, profile, policy, classifier) and `exclude_kinds` (default class-map).

    Failing (EOS)::

        qos profile ROCE_OLD

    Passing::

        qos profile ROCE
        interface Ethernet1
           service-profile ROCE
    """

    class Options(StrictOptions):
        """Options of QOS006."""

        kind_words: list[str] = ["map", "profile", "policy", "classifier"]
        """A definition kind containing one of these words is checked."""
        exclude_kinds: list[str] = ["class-map"]
        """Kinds never reported."""

    code = "QOS006"
    name = "unused-definition"
    severity = "info"
    summary = "A QoS map/profile/policy is defined and applied nowhere"
    options_model = Options

    def check(self, ctx: Context) -> Iterator[Finding]:
        for state in ordered(ctx):
            used = {(r.kind, r.name) for r in state.references}
            seen: set[tuple[str, str]] = set()
            for item in state.definitions:
                key = (item.kind, item.name)
                if key in used or key in seen or not self._checked(item.kind):
                    continue
                seen.add(key)
                yield self.finding(
                    state.name,
                    f"{item.kind} {item.name}",
                    f"definitions.{item.kind}.{item.name}",
                    f"{item.kind} {item.name} is defined but applied nowhere",
                    expected="referenced",
                    actual=None,
                    source=item.source,
                )

    def _checked(self, kind: str) -> bool:
        lowered = kind.lower()
        if lowered in (k.lower() for k in self.options.exclude_kinds):
            return False
        return any(word in lowered for word in self.options.kind_words)
