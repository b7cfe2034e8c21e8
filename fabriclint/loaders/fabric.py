"""Load a fabric directory (inventory, intent, policy) and check what schemas cannot express."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from fabriclint.confine import UnsafeInput, check_inside, max_file_size
from fabriclint.loaders.yaml import Problem, YamlDoc, load_yaml, validate_doc
from fabriclint.models.intent import Intent, Profile
from fabriclint.models.inventory import Inventory
from fabriclint.models.policy import Policy

PACKS_DIR = Path(__file__).resolve().parent.parent / "policies"
_PACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
"""A built-in pack's name; anything else in `extends` is a path inside the fabric folder."""
M = TypeVar("M", bound=BaseModel)
SOURCE_FILE = "inventory-source.yaml"
"""A live inventory source (fabriclint/inventories/live.py), instead of inventory.yaml."""
CACHE_FILE = Path(".fabriclint") / "inventory-cache.yaml"
"""Where a live source's inventory is kept, relative to the fabric folder."""


@dataclass
class Fabric:
    """A loaded fabric directory."""

    root: Path
    inventory: Inventory
    intent: Intent | None
    policy: Policy
    docs: dict[str, YamlDoc] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    """Located problems that do not stop a check (a platform without a parser)."""


class FabricError(Exception):
    """The fabric directory has problems; nothing can be checked."""

    def __init__(self, problems: list[Problem], warnings: list[Problem] | None = None) -> None:
        super().__init__(f"{len(problems)} problem(s) in the fabric files")
        self.problems = problems
        self.warnings = warnings or []
        """What `validate` also says when the inventory itself loaded (an unknown platform)."""


def display_path(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def available_packs() -> list[str]:
    """Names of the built-in policy packs."""
    return sorted(p.stem for p in PACKS_DIR.glob("*.yaml"))


def _load_model(
    path: Path, model: type[M], root: Path | None = None
) -> tuple[M | None, YamlDoc | None, list[Problem]]:
    """Load and validate one YAML file; a file of the fabric folder `root` must be a regular
    file inside it (a link out of a PR's fabric folder, or a FIFO, is refused)."""
    if root is not None:
        refused = refuse_outside(path, root)
        if refused is not None:
            return None, None, [Problem(display_path(path), 1, 1, refused)]
    doc, problems = load_yaml(path, display_path(path))
    if doc is None:
        return None, None, problems
    obj, errors = validate_doc(doc, model)
    return obj, doc, problems + errors


def refuse_outside(path: Path, root: Path) -> str | None:
    """Why `path` must not be read from the fabric folder `root` (see confine.py), or None."""
    try:
        max_file_size()
        check_inside(path, root)
    except (UnsafeInput, ValueError) as exc:
        return str(exc).partition(": ")[2] if isinstance(exc, UnsafeInput) else str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return None


def _suggest(name: str, known: list[Any]) -> str:
    # YAML keys may be numbers or booleans (`7:`, `true:`): compared as the text they are
    hint = difflib.get_close_matches(name, [str(k) for k in known], n=1)
    return f"; did you mean '{hint[0]}'?" if hint else ""


def _mapping(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def _link_ends(data: dict[Any, Any]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(location, device, port) of every well-formed link end, read from the raw YAML."""
    links = data.get("links")
    out: list[tuple[tuple[str | int, ...], str, str]] = []
    for index, link in enumerate(links if isinstance(links, list) else []):
        for side in ("a", "b"):
            end = _mapping(link).get(side)
            if isinstance(end, str) and ":" in end:
                device, _, port = end.partition(":")
                out.append((("links", index, side), device, port))
    return out


def _check_inventory(doc: YamlDoc) -> list[Problem]:
    """Cabling-plan checks on the raw data, so they run even when other keys fail the schema."""
    data = _mapping(doc.data)
    devices = list(_mapping(data.get("devices")))
    problems: list[Problem] = []
    seen: dict[tuple[str, str], int] = {}
    for loc, device, port in _link_ends(data):
        if device not in devices:
            hint = _suggest(device, devices)
            problems.append(
                doc.problem(loc, f"link end '{device}:{port}' names an unknown device{hint}")
            )
        elif (device, port) in seen:
            message = f"port {device}:{port} is cabled twice (also in link {seen[(device, port)]})"
            problems.append(doc.problem(loc, message))
        seen.setdefault((device, port), int(loc[1]))
    for name, raw in _mapping(data.get("devices")).items():
        manager = _mapping(raw).get("managed_by")
        if isinstance(manager, str) and (manager not in devices or manager == name):
            why = "itself" if manager == name else f"an unknown device{_suggest(manager, devices)}"
            problems.append(doc.problem(("devices", name, "managed_by"), f"managed_by names {why}"))
    return problems


def _platform_hint(value: str, known: list[str]) -> str:
    """A did-you-mean: a supported key inside the name (`arista_eos`, netmiko's name for
    `eos`), else the closest spelling."""
    words = set(re.split(r"[_.-]+", value))
    inside = [k for k in known if k in words]
    return f"; did you mean '{inside[0]}'?" if inside else _suggest(value, known)


def platform_warnings(doc: YamlDoc, inventory: Inventory) -> list[Problem]:
    """A warning for each device whose platform no parser supports: accepted (the inventory may
    describe the whole fabric), but such a device is never checked, so `check` is incomplete."""
    from fabriclint.parsers import SUPPORTED_PLATFORMS

    known = list(SUPPORTED_PLATFORMS)
    out = []
    for name, device in inventory.devices.items():
        if device.platform in known or device.managed_by is not None:
            continue  # a managed device (an InfiniBand switch) is never parsed: no warning
        message = (
            f"device '{name}': no parser for platform '{device.platform}'"
            f"{_platform_hint(device.platform, known)} (supported: {', '.join(known)}); "
            "`check` reports it unsupported and the result incomplete (exit 3)"
        )
        out.append(doc.problem(("devices", name, "platform"), message, value=True))
    return out


def _profile_refs(data: dict[Any, Any]) -> list[tuple[tuple[str | int, ...], str, str]]:
    """(location, who, profile name) of every profile reference in raw intent data."""
    refs: list[tuple[tuple[str | int, ...], str, str]] = []
    for section, who in (("roles", "role"), ("devices", "device")):
        for name, choice in _mapping(data.get(section)).items():
            profile = _mapping(choice).get("profile")
            if isinstance(profile, str):
                refs.append(((section, name, "profile"), f"{who} '{name}'", profile))
    return refs


def _check_intent(doc: YamlDoc, inv_doc: YamlDoc | None) -> list[Problem]:
    """Reference checks on the raw intent data (run even when other keys fail the schema)."""
    data = _mapping(doc.data)
    profiles = [str(p) for p in _mapping(data.get("profiles"))]
    problems = [
        doc.problem(loc, f"{who} uses undefined profile '{name}'{_suggest(name, profiles)}")
        for loc, who, name in _profile_refs(data)
        if name not in profiles
    ]
    if inv_doc is None:
        return problems
    inv_devices = _mapping(_mapping(inv_doc.data).get("devices"))
    for device in _mapping(data.get("devices")):
        if device not in inv_devices:
            hint = _suggest(str(device), list(inv_devices))
            problems.append(
                doc.problem(("devices", device), f"intent for unknown device '{device}'{hint}")
            )
    return problems


def unused_role_warnings(doc: YamlDoc, inventory: Inventory) -> list[Problem]:
    """A warning for each intent role no device of this inventory has: one intent shared by
    several fabrics is normal, so it is not an error; the did-you-mean still catches a typo."""
    roles = sorted({d.role for d in inventory.devices.values()})
    return [
        doc.problem(
            ("roles", role),
            f"role '{role}' is used by no device in the inventory{_suggest(str(role), roles)}",
        )
        for role in _mapping(_mapping(doc.data).get("roles"))
        if role not in roles
    ]


def _check_profiles(intent: Intent, doc: YamlDoc) -> list[Problem]:
    """Profiles that contradict themselves (the switches would be blamed for intent's mistake)."""
    problems = []
    for name, prof in intent.profiles.items():
        if prof.roce and prof.cnp and prof.cnp.dscp in prof.roce.dscp:
            message = f"profile '{name}': CNP DSCP {prof.cnp.dscp} is also a RoCE DSCP; CNPs need their own class"
            problems.append(doc.problem(("profiles", name, "cnp", "dscp"), message, value=True))
        pfc_problem = _pfc_against_mode(name, prof)
        if pfc_problem:
            problems.append(doc.problem(("profiles", name, "pfc", "priorities"), pfc_problem))
        if prof.roce and prof.cnp and prof.cnp.priority == prof.roce.priority:
            message = f"profile '{name}': CNP priority {prof.cnp.priority} equals the RoCE priority"
            problems.append(doc.problem(("profiles", name, "cnp", "priority"), message, value=True))
    return problems


def _pfc_against_mode(name: str, prof: Profile) -> str | None:
    """A PFC list that contradicts the RoCE mode: lossless RoCE needs its priority in it, lossy
    (ECN-only) RoCE must leave it out."""
    if prof.roce is None or prof.pfc is None:
        return None
    listed = prof.roce.priority in prof.pfc.priorities
    shown = sorted(prof.pfc.priorities)
    if prof.lossy and listed:
        return (
            f"profile '{name}': roce.mode is lossy but pfc.priorities {shown} lists the RoCE "
            f"priority {prof.roce.priority}; drop it or use mode lossless"
        )
    if not prof.lossy and not listed:
        return (
            f"profile '{name}': RoCE priority {prof.roce.priority} is not among the PFC "
            f"priorities {shown}; RoCE would be lossy (say roce.mode: lossy if it is meant to be)"
        )
    return None


def roles_without_profile(intent: Intent, inv: Inventory) -> list[str]:
    """Inventory roles the intent gives no profile (checked at `check` time as INV001)."""
    return sorted({d.role for d in inv.devices.values()} - set(intent.roles))


def _merge_policy(base: Policy, over: Policy) -> Policy:
    merged = base.model_copy(deep=True)
    if over.select is not None:
        merged.select = list(over.select)
    merged.extend_select += over.extend_select
    merged.ignore += over.ignore
    for key, codes in over.per_device_ignores.items():
        merged.per_device_ignores[key] = merged.per_device_ignores.get(key, []) + codes
    for key, codes in over.per_role_ignores.items():
        merged.per_role_ignores[key] = merged.per_role_ignores.get(key, []) + codes
    merged.severity.update(over.severity)
    for code, opts in over.options.items():
        merged.options[code] = {**merged.options.get(code, {}), **opts}
    merged.fail_on = over.fail_on or merged.fail_on
    merged.site_rules += over.site_rules
    merged.suppressions += over.suppressions
    merged.extends = []
    return merged


def _pack_path(name: str, root: Path | None) -> tuple[Path | None, str]:
    """Where pack `name` lives, or (None, why not). A bare name is a built-in pack; a path
    (`packs/site.yaml`) is read only from inside the fabric folder `root`."""
    if _PACK_NAME.fullmatch(name):
        path = PACKS_DIR / f"{name}.yaml"
        hint = _suggest(name, available_packs())
        return (path, "") if path.is_file() else (None, f"unknown policy pack '{name}'{hint}")
    if root is None:
        return None, f"policy pack '{name}': a built-in pack can only extend built-in packs"
    path = root / name
    try:
        check_inside(path, root)
    except UnsafeInput as exc:
        return None, f"policy pack '{name}': {str(exc).partition(': ')[2]}"
    except OSError:
        return None, f"policy pack '{name}': no such file in the fabric folder"
    return path, ""


def resolve_policy(
    policy: Policy, doc: YamlDoc | None, depth: int = 0, root: Path | None = None
) -> tuple[Policy, list[Problem]]:
    """Apply `extends` (built-in packs, or pack files inside the fabric folder `root`,
    recursively) under `policy`."""
    problems: list[Problem] = []
    result = Policy()
    for index, name in enumerate(policy.extends):
        path, why = _pack_path(name, root)
        if path is None or depth > 5:
            msg = why or f"policy pack '{name}': extends nests more than 5 deep"
            if doc is not None:
                problems.append(doc.problem(("extends", index), msg))
            else:
                problems.append(Problem("policy", 1, 1, msg))
            continue
        pack, pack_doc, errors = _load_model(path, Policy)
        problems += errors
        if pack is not None:
            inner = None if path.parent == PACKS_DIR else root  # built-ins extend built-ins
            resolved, more = resolve_policy(pack, pack_doc, depth + 1, inner)
            problems += more
            result = _merge_policy(result, resolved)
    return _merge_policy(result, policy), problems


def _unknown_codes(doc: YamlDoc, policy: Policy, codes: list[str]) -> list[Problem]:
    """Every code a policy names that matches no built-in or site rule."""
    places: list[tuple[tuple[str | int, ...], str]] = []
    for field_name in ("select", "extend_select", "ignore"):
        values = getattr(policy, field_name) or []
        places += [((field_name, i), code) for i, code in enumerate(values)]
    for field_name in ("per_device_ignores", "per_role_ignores"):
        for key, values in getattr(policy, field_name).items():
            places += [((field_name, key, i), code) for i, code in enumerate(values)]
    places += [(("severity", code), code) for code in policy.severity]
    places += [(("suppressions", i, "rule"), s.rule) for i, s in enumerate(policy.suppressions)]
    return [
        doc.problem(loc, _unknown_code(code, codes))
        for loc, code in places
        if code != "ALL" and not any(c.startswith(code) for c in codes)
    ]


def _unknown_code(code: str, codes: list[str], prefix: str = "unknown rule code") -> str:
    """Why a policy cannot name `code`: a removed rule (said so, with its version and reason:
    a suggestion of a near code would point at another check) or one that never was a rule."""
    from fabriclint.rules.removed import removed_message

    return removed_message(code) or f"{prefix} '{code}'{_suggest(code, codes)}"


def _check_policy(
    policy: Policy, doc: YamlDoc | None, known: dict[str, type[BaseModel]]
) -> list[Problem]:
    if doc is None:
        return []
    codes = sorted({*known, *(r.code for r in policy.site_rules)})
    problems = _unknown_codes(doc, policy, codes)
    for code, opts in policy.options.items():
        problems += _check_options(doc, code, opts, known, codes)
    problems += _check_site_schemas(policy, doc)
    site_codes = [r.code for r in policy.site_rules]
    from fabriclint.rules.removed import removed_message

    for index, rule in enumerate(policy.site_rules):
        removed = removed_message(rule.code)
        if removed is not None:  # a removed code stays reserved: never reused, even by a site
            message = f"site {removed}: codes are never reused"
            problems.append(doc.problem(("site_rules", index, "code"), message))
        elif rule.code in known or site_codes.count(rule.code) > 1:
            message = f"site rule code '{rule.code}' is already used"
            problems.append(doc.problem(("site_rules", index, "code"), message))
    return problems


def _check_site_schemas(policy: Policy, doc: YamlDoc) -> list[Problem]:
    if not policy.site_rules:
        return []  # jsonschema costs ~0.1 s to import: only when a policy has site rules
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    problems = []
    for index, rule in enumerate(policy.site_rules):
        try:
            Draft202012Validator.check_schema(rule.schema_)
        except SchemaError as exc:
            where = ".".join(str(p) for p in exc.absolute_path) or "(top)"
            message = f"site rule {rule.code}: invalid JSON Schema at {where}: {exc.message}"
            problems.append(
                doc.problem(("site_rules", index, "schema", *exc.absolute_path), message)
            )
            continue
        for at, ref in _unresolved_refs(rule.schema_):
            message = f"site rule {rule.code}: $ref {ref!r} does not resolve within the schema"
            problems.append(doc.problem(("site_rules", index, "schema", *at, "$ref"), message))
    return problems


def _unresolved_refs(schema: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """(location, ref) of each `$ref` that does not resolve inside `schema`; nothing is fetched
    (jsonschema would raise on it while `check` applies the rule)."""
    from referencing import Registry
    from referencing.exceptions import Unresolvable
    from referencing.jsonschema import DRAFT202012

    resolver = Registry().with_resource("", DRAFT202012.create_resource(schema)).resolver()
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                try:
                    resolver.lookup(ref)
                except Unresolvable:
                    found.append((where, ref))
            stack.extend(((*where, str(k)), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend(((*where, i), v) for i, v in enumerate(node))
    return sorted(found, key=str)


def _check_options(
    doc: YamlDoc,
    code: str,
    opts: dict[str, Any],
    known: dict[str, type[BaseModel]],
    codes: list[str],
) -> list[Problem]:
    model = known.get(code)
    if model is None:
        return [
            doc.problem(("options", code), _unknown_code(code, codes, "options for unknown rule"))
        ]
    try:
        model.model_validate(opts)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = ("options", code, *err["loc"])
            problems.append(
                doc.problem(loc, f"options.{code}.{'.'.join(map(str, err['loc']))}: {err['msg']}")
            )
        return problems
    return []


def _exists(path: Path) -> bool:
    """There is something by that name (a dangling link or a FIFO too: refused, not ignored)."""
    return path.is_symlink() or path.exists()


def has_source(root: Path) -> bool:
    """The fabric folder declares a live inventory source (inventory-source.yaml)."""
    return _exists(root / SOURCE_FILE)


def inventory_path(root: Path) -> Path:
    """The file the fabric's inventory is read from: a live source's cache, else
    inventory.yaml."""
    return root / CACHE_FILE if has_source(root) else root / "inventory.yaml"


def live_problems(root: Path) -> list[Problem]:
    """What stops a fabric with a live source from loading: a wrong inventory-source.yaml, an
    inventory.yaml beside it, or no cache yet (the CLI fetches it; see inventories/live.py)."""
    from fabriclint.inventories.live import read_source

    _, problems = read_source(root)
    where = display_path(root / SOURCE_FILE)
    if _exists(root / "inventory.yaml"):
        problems.append(Problem(where, 1, 1, "inventory.yaml is here too: keep one of them"))
    elif not problems and not _exists(root / CACHE_FILE):
        why = "no inventory fetched yet: run `fabriclint inventory refresh` or check without --offline"
        problems.append(Problem(where, 1, 1, why))
    return problems


def _inventory_file(root: Path) -> Path:
    """The inventory file to load; FabricError when there is none to load."""
    if not root.is_dir():
        raise FabricError([Problem(display_path(root), 1, 1, "fabric directory not found")])
    inv_path = inventory_path(root)
    if has_source(root) and (live := live_problems(root)):
        raise FabricError(live)
    if not _exists(inv_path):
        raise FabricError([Problem(display_path(inv_path), 1, 1, "inventory.yaml not found")])
    return inv_path


def load_fabric(root: Path, option_models: dict[str, type[BaseModel]]) -> Fabric:
    """Load and check a fabric directory; raise FabricError listing every problem found."""
    inv_path = _inventory_file(root)
    inventory, inv_doc, problems = _load_model(inv_path, Inventory, root)
    intent = intent_doc = None
    if _exists(root / "intent.yaml"):
        intent, intent_doc, more = _load_model(root / "intent.yaml", Intent, root)
        problems += more
    policy, policy_doc = Policy(extends=["default"]), None
    if _exists(root / "policy.yaml"):
        loaded, policy_doc, more = _load_model(root / "policy.yaml", Policy, root)
        problems += more
        policy = loaded or policy
    if inv_doc is not None:
        problems += _check_inventory(inv_doc)
    if intent_doc is not None:
        problems += _check_intent(intent_doc, inv_doc)
    if intent is not None and intent_doc is not None:
        problems += _check_profiles(intent, intent_doc)
    problems += _check_policy(policy, policy_doc, option_models)
    resolved, more = resolve_policy(policy, policy_doc, root=root)
    problems += more
    warnings: list[Problem] = []
    if inventory is not None and inv_doc is not None:
        warnings = platform_warnings(inv_doc, inventory)
    if problems or inventory is None:
        # each problem once, in the order found where several share a place (not a set's order,
        # which changes from run to run with PYTHONHASHSEED)
        once = list(dict.fromkeys(problems))
        raise FabricError(sorted(once, key=lambda p: (p.file, p.line, p.col)), warnings)
    docs = {
        name: d
        for name, d in (("inventory", inv_doc), ("intent", intent_doc), ("policy", policy_doc))
        if d
    }
    if intent_doc is not None:
        warnings += unused_role_warnings(intent_doc, inventory)
    return Fabric(
        root=root, inventory=inventory, intent=intent, policy=resolved, docs=docs, warnings=warnings
    )
