"""The redaction tables: one per platform plus GENERIC, applied to every output.

This is the single place to add a kind of secret: add a Rule to the platform's table (with an
example line spelling the secret `SECRET`; tests redact every example and check docs/collect.md
lists every kind). `redact(text, platform)` applies the platform's table, then GENERIC.
Patterns name only secret-bearing keywords, so QoS statements never match; the example fabrics'
snapshots are tested to redact to themselves.
"""

from __future__ import annotations

from fabriclint.collectors.redaction import structured
from fabriclint.collectors.redaction.base import SP, TYPE, VALUE, Rule, custom, token

# Words that follow `password` in non-secret settings (`no password strength-check`).
_NOT_PASSWORD = (
    r"(?!(?:strength-check|minimum|policy|encryption|reuse|prompt|aging|retry|required|format)\b)"
)
_HASH_TYPE = rf"(?:sha512|sha256|md5|{TYPE})"
# Secret-looking key names in JSON and YAML (`"passkey": "x"`, `password: x`, `tacacs_key`).
_KEY_NAME = (
    r"(?:[\w-]*(?:password|passwd|passkey|passphrase)[\w-]*|[\w-]*secret[\w-]*"
    r"|[\w-]*community[\w-]*|(?:[\w-]*[_-])?key|psk)"
)
# NVUE SNMP settings whose secret is either the value or the key one level below.
_NVUE_SNMP = (
    "readonly-community",
    "readonly-community-v6",
    "community-password",
    "auth-md5",
    "auth-sha",
    "encrypt-aes",
    "encrypt-des",
)
_NVUE_NAMES = "|".join(_NVUE_SNMP)

# --- rules shared by the Cisco-style CLIs (EOS, NX-OS; NCLU reuses `password`) ---------------

PASSWORD = token(
    "password [type] X (username, enable, BGP neighbor, LDAP)",
    "username ops password 7 SECRET",
    ("password",),
    rf"\bpassword(?:{SP}{_HASH_TYPE})?{SP}{_NOT_PASSWORD}{VALUE}",
)
SECRET = token(
    "secret [id] [type] X (username/enable secret, key chain `key 1 secret 0 X`, "
    "EOS shared-secret profile `secret 1 7 X receive-lifetime ...`)",
    "   secret 1 7 SECRET receive-lifetime infinite transmit-lifetime infinite",
    ("secret",),
    rf"\bsecret(?:{SP}[0-9]+)?(?:{SP}{_HASH_TYPE})?{SP}(?!profile\b){VALUE}",
)
SNMP_COMMUNITY = token(
    "snmp-server community X",
    "snmp-server community SECRET ro",
    ("community",),
    rf"\bsnmp-server{SP}community{SP}{VALUE}",
)
SNMP_HOST = token(
    "snmp-server host H [vrf V] [traps|informs] [version 1|2c] COMMUNITY (not a v3 user)",
    "snmp-server host 10.0.0.1 vrf MGMT traps SECRET",
    ("snmp-server",),
    rf"\bsnmp-server{SP}host{SP}\S+(?:{SP}vrf{SP}\S+)?(?:{SP}(?:traps|informs))?"
    rf"(?:{SP}version{SP}(?:1|2c))?{SP}"
    rf"(?!(?:version|vrf|use-vrf|filter-vrf|source-interface|traps|informs|udp-port)\b){VALUE}",
)
SNMP_AUTH = token(
    "SNMPv3 user auth key: snmp-server user ... auth md5|sha* X",
    "snmp-server user mon grp v3 auth sha SECRET",
    ("auth",),
    rf"\bsnmp-server{SP}user{SP}.*?\bauth{SP}(?:md5|sha\S*){SP}{VALUE}",
)
SNMP_PRIV = token(
    "SNMPv3 user privacy key: snmp-server user ... priv [des|3des|aes*] X",
    "snmp-server user mon grp v3 auth sha a priv aes SECRET",
    ("priv",),
    rf"\bsnmp-server{SP}user{SP}.*?\bpriv{SP}(?:(?:des|3des|aes\S*){SP})?{VALUE}",
)
AAA_KEY = token(
    "tacacs-server/radius-server [host H ...] key [type] X",
    "tacacs-server host 10.0.0.7 vrf MGMT key 7 SECRET",
    ("tacacs", "radius"),
    rf"\b(?:tacacs|radius)\S*{SP}(?:.*?{SP})?key{SP}(?:{TYPE}{SP})?{VALUE}",
)
NTP_KEY = token(
    "ntp authentication-key N md5|sha1 [type] X [type]",
    "ntp authentication-key 1 md5 7 SECRET",
    ("ntp",),
    rf"\bntp{SP}authentication-key{SP}\S+{SP}\S+{SP}(?:{TYPE}{SP}(?=\S))?{VALUE}",
)
OSPF_KEY = token(
    "ip ospf authentication-key [type] X",
    "   ip ospf authentication-key 7 SECRET",
    ("authentication-key",),
    rf"(?<!ntp )\bauthentication-key(?:{SP}{TYPE})?{SP}{VALUE}",
)
MD5_KEY = token(
    "ip ospf message-digest-key N md5 [type] X",
    "   ip ospf message-digest-key 1 md5 7 SECRET",
    ("message-digest-key",),
    rf"\bmessage-digest-key{SP}\S+{SP}md5{SP}(?:{TYPE}{SP})?{VALUE}",
)
KEY_STRING = token(
    "key-string [type] X (key chains, VRRP ietf-md5, HSRP md5)",
    "   vrrp 1 peer authentication ietf-md5 key-string 7 SECRET",
    ("key-string",),
    rf"\bkey-string(?:{SP}{TYPE})?{SP}{VALUE}",
)
AUTH_TEXT = token(
    "authentication text [type] X (VRRP, HSRP)",
    "   vrrp 1 peer authentication text SECRET",
    ("authentication",),
    rf"\bauthentication{SP}text{SP}(?:{TYPE}{SP}(?=\S))?{VALUE}",
)
_CISCO_STYLE = [
    PASSWORD,
    SECRET,
    SNMP_COMMUNITY,
    SNMP_HOST,
    SNMP_AUTH,
    SNMP_PRIV,
    AAA_KEY,
    NTP_KEY,
    OSPF_KEY,
    MD5_KEY,
    KEY_STRING,
    AUTH_TEXT,
]

EOS: list[Rule] = [
    *_CISCO_STYLE,
    token(
        "IS-IS [isis] authentication key [type] X [level-N]",
        "   isis authentication key 7 SECRET level-1",
        ("authentication",),
        rf"\bauthentication{SP}key{SP}(?:{TYPE}{SP}(?=\S))?{VALUE}",
    ),
    # EOS MACsec (`mac security` / `profile P`): `key CKN [0|7|8a] CAK [fallback]`; the CKN is
    # the key's name, the CAK the secret (EOS User Manual, "MACsec", key command).
    token(
        "MACsec key CKN [type] CAK",
        "      key 1234 7 SECRET fallback",
        ("key",),
        rf"^[ \t]*key{SP}[0-9a-f]+{SP}(?!secret\b)(?:(?:0|7|8a){SP}(?=\S))?{VALUE}",
    ),
    # TerminAttr's `-cvauth=key,X` is a shared key; `-cvauth=token,/path` and
    # `-cvauth=token-secure,/path` name a file (CloudVision "TerminAttr options", -cvauth).
    token(
        "TerminAttr -cvauth=key,X (daemon TerminAttr exec line)",
        "   exec /usr/bin/TerminAttr -cvauth=key,SECRET -cvaddr=10.0.0.5:9910",
        ("cvauth",),
        r"-{1,2}cvauth(?:=|[ \t]+)key,(?P<v>[^\s\"']+)",
    ),
]

NXOS: list[Rule] = [
    *_CISCO_STYLE,
    token(
        "MACsec key chain key-octet-string [type] X",
        "    key-octet-string 7 SECRET cryptographic-algorithm AES_256_CMAC",
        ("key-octet-string",),
        rf"\bkey-octet-string(?:{SP}{TYPE})?{SP}{VALUE}",
    ),
]

JUNOS: list[Rule] = [
    token(
        "encrypted-password / plain-text-password / SNMPv3 authentication-|privacy-password X",
        '        encrypted-password "SECRET";',
        ("password",),
        rf"\b(?:encrypted|plain-text|authentication|privacy)-password{SP}{VALUE}",
    ),
    token(
        'secret "X" (RADIUS/TACACS+ servers)',
        '            secret "SECRET";',
        ("secret",),
        rf"(?<![\w-])secret{SP}{VALUE}",
    ),
    token(
        "ntp authentication-key N type T value X",
        'set system ntp authentication-key 1 type md5 value "SECRET"',
        ("authentication-key",),
        rf"\bauthentication-key{SP}\S+{SP}type{SP}\S+{SP}value{SP}{VALUE}",
    ),
    token(
        "[hello-]authentication-key X, SNMPv3 privacy-key X, OSPF md5 N key X, MACsec cak X",
        '    authentication-key "SECRET";',
        ("authentication-key", "privacy-key", "key", "cak"),
        rf"(?:\b(?:authentication-key|privacy-key|cak)|\bmd5{SP}\S+{SP}key){SP}"
        rf"(?![0-9]+{SP}type\b){VALUE}",
    ),
    token(
        "pre-shared-key ascii-text|hexadecimal X",
        'set security ike policy P pre-shared-key ascii-text "SECRET"',
        ("pre-shared-key",),
        rf"\bpre-shared-key{SP}(?:ascii-text|hexadecimal){SP}{VALUE}",
    ),
    # `community X {` / `community X;` (never a policy-options `community N members ...`).
    token(
        "SNMP community X, brace form",
        "    community SECRET {",
        ("community",),
        rf"^[ \t]*community{SP}{VALUE}(?=[ \t]*[{{;])",
    ),
    token(
        "SNMP community X, set form",
        "set snmp community SECRET authorization read-only",
        ("community",),
        rf"\bset{SP}snmp{SP}community{SP}{VALUE}",
    ),
    # In SNMPv1/v2c the trap group's name is sent as the community of its traps (Junos
    # Network Management guide, `trap-group` statement).
    token(
        "SNMP trap-group X (brace and set forms: the name is the v1/v2c trap community)",
        "set snmp trap-group SECRET targets 10.0.0.9",
        ("trap-group",),
        rf"\btrap-group{SP}{VALUE}",
    ),
    token(
        "SNMPv3 snmp-community community-name X",
        'set snmp v3 snmp-community idx1 community-name "SECRET"',
        ("community-name",),
        rf"\bcommunity-name{SP}{VALUE}",
    ),
]

SONIC: list[Rule] = [
    # config_db.json writes SNMP_COMMUNITY with the community as the object key (SONiC
    # "Configuration" wiki, SNMP_COMMUNITY table), nested in the file or flat as `TABLE|key`.
    custom(
        "SNMP community names as keys, nested: SNMP_COMMUNITY: {X: {...}}",
        '{"SNMP_COMMUNITY": {"SECRET": {"TYPE": "RO"}}}',
        ("snmp_community",),
        structured.json_object_keys("SNMP_COMMUNITY"),
    ),
    custom(
        'SNMP community names as keys, flat: "SNMP_COMMUNITY|X"',
        '    "SNMP_COMMUNITY|SECRET": {',
        ("snmp_community",),
        structured.json_flat_keys("SNMP_COMMUNITY"),
    ),
    # TACPLUS/RADIUS `passkey` may be written as a JSON number; a MACsec profile's CAK is
    # `primary_cak` / `fallback_cak` (names the generic key-name rule does not cover).
    token(
        'passkey/password/secret/key as a JSON number ("passkey": 12345)',
        '        "passkey": 1234567,',
        ("pass", "secret", "key"),
        r'"(?:passkey|password|secret|key|psk|[\w-]*_key)"\s*:\s*(?P<v>-?[0-9][0-9.eE+-]*)',
        as_string=True,
    ),
    custom(
        'passkey/password/secret/key as a JSON list or object ("passkey": ["X"], {"v": "X"})',
        '        "passkey": ["SECRET"],',
        ("pass", "secret", "key"),
        structured.json_secret_containers(r"passkey|password|secret|key|psk|[\w-]*_key"),
    ),
    token(
        "MACsec profile primary_cak / fallback_cak (string or number)",
        '        "primary_cak": "SECRET",',
        ("cak",),
        r'"[\w-]*cak"\s*:\s*(?P<v>"(?:[^"\\\n]|\\.)*"|-?[0-9][0-9.eE+-]*)',
        as_string=True,
    ),
]

CUMULUS: list[Rule] = [
    # NVUE YAML: `readonly-community:` / `community-password:` / `auth-sha:` ... with the secret
    # as the key one level below (`readonly-community:\n  public: {access: ...}`), as
    # `nv set service snmp-server readonly-community public access any` stores it (Cumulus Linux
    # user guide, "Simple Network Management Protocol - SNMP").
    custom(
        "NVUE SNMP secret as map key: readonly-community, community-password, auth-md5|sha, "
        "encrypt-aes|des",
        "  readonly-community:\n    SECRET:\n      access: {any: {}}",
        tuple(_NVUE_SNMP),
        structured.yaml_child_keys(frozenset(_NVUE_SNMP)),
    ),
    token(
        "NVUE SNMP secret as value: community-password: X, auth-sha: X, ...",
        "            community-password: SECRET",
        tuple(_NVUE_SNMP),
        rf"^[ \t]*(?:-[ \t]+)?(?:{_NVUE_NAMES})[ \t]*:[ \t]+"
        r"(?P<v>'[^'\n]*'|\"[^\"\n]*\"|[^\s{\[#'\"][^\s#]*)[ \t]*$",
    ),
    token(
        "NCLU / nv set: readonly-community X, community-password X, auth-sha X, encrypt-aes X",
        "net add snmp-server username mon auth-sha SECRET encrypt-aes x",
        tuple(_NVUE_SNMP),
        rf"\b(?:{_NVUE_NAMES}){SP}{VALUE}",
    ),
    # `nv set system aaa tacacs server N secret X`, `... radius server H secret X` (Cumulus
    # Linux user guide, "TACACS", "RADIUS AAA"); `password X` is PASSWORD's.
    token(
        "nv set ... secret X (TACACS+/RADIUS server shared secrets)",
        "nv set system aaa tacacs server 1 secret SECRET",
        ("secret",),
        rf"^[ \t]*nv{SP}set{SP}.*?\bsecret{SP}{VALUE}",
    ),
    PASSWORD,
]

MLNX_HOST: list[Rule] = [
    # infiniband-diags `smpquery portinfo` prints the port's M_Key; 0 means "no M_Key".
    token(
        "IB port M_Key in port info (Mkey:....0x...), unless 0",
        "Mkey:............................0xSECRET",
        ("mkey",),
        r"^[ \t]*Mkey:\.*(?!0x0+[ \t]*$)(?P<v>[^\s.]\S*)",
    ),
]

# opensm.conf keys (opensm(8)): m_key (port M_Key), sm_key, sa_key, cc_key (congestion control
# key, opensm's `congestion_control` section); 0 and 1 are OpenSM's defaults, not site secrets.
OPENSM: list[Rule] = [
    custom(
        "m_key / sm_key / sa_key / cc_key, unless at OpenSM's default (0 or 1)",
        "cc_key 0xSECRET",
        ("_key",),
        structured.non_default_key(("m_key", "sm_key", "sa_key", "cc_key"), (0, 1)),
    ),
]

GENERIC: list[Rule] = [
    token(
        'JSON string value of a secret-named key ("passkey", "*password*", "*secret*", "*_key")',
        '    "SNMP_USER_AUTH_PASSWORD": "SECRET",',
        ("pass", "secret", "community", 'key"', "psk"),
        rf'"{_KEY_NAME}"\s*:\s*(?P<v>"(?:[^"\\\n]|\\.)*")',
    ),
    custom(
        "YAML value of a secret-named key (secret: X, password: X, key: X)",
        "              secret: SECRET",
        ("pass", "secret", "community", "key:", "psk"),
        structured.yaml_named_values(_KEY_NAME),
    ),
    custom(
        "YAML flow-map value of a secret-named key ({password: X, role: admin})",
        "  aaa: {role: admin, password: SECRET}",
        ("pass", "secret", "community", "key", "psk"),
        structured.yaml_flow_values(_KEY_NAME),
    ),
    custom(
        "YAML value of a secret-named key on the line below it (password:\\n  X), YAML only",
        "aaa:\n  password:\n    SECRET\n  role: admin",
        ("pass", "secret", "community", "key:", "psk"),
        structured.yaml_next_line_values(_KEY_NAME),
    ),
    # Junos reversible `$9$`, crypt(3) hashes `$1$ $5$ $6$ $y$ $2b$` wherever they are.
    token(
        "crypt(3) hashes ($1$ $5$ $6$ $y$ $2b$) and Junos $9$ anywhere",
        "hashed-password: $6$SECRET",
        ("$",),
        r"(?P<v>(?P<q>\"?)\$(?:9|1|5|6|y|2[aby])\$[^\s\";]+(?P=q))",
    ),
    custom(
        "PEM private key blocks (every line between BEGIN and END)",
        "-----BEGIN PRIVATE KEY-----\nSECRET\n-----END PRIVATE KEY-----",
        ("private key-----",),
        structured.pem_private_keys,
    ),
]

TABLES: dict[str, list[Rule]] = {
    "eos": EOS,
    "nxos": NXOS,
    "junos": JUNOS,
    "sonic": SONIC,
    "cumulus": CUMULUS,
    "mlnx-host": MLNX_HOST,
    "opensm": OPENSM,
}
"""The platform tables, by inventory platform name."""


def rules_for(platform: str | None) -> list[Rule]:
    """The rules applied to a `platform` output: its table, then GENERIC.

    An unknown platform (or None: text of unknown origin) gets every table, so nothing is
    written unredacted because a platform name was missing.
    """
    if platform in TABLES:
        return [*TABLES[platform], *GENERIC]
    seen: list[Rule] = []
    for rule in (rule for table in TABLES.values() for rule in table):
        if all(rule is not other for other in seen):
            seen.append(rule)
    return [*seen, *GENERIC]


def markdown() -> str:
    """The table of docs/collect.md: each rule once, with the platforms whose table holds it."""
    owners: dict[int, tuple[Rule, list[str]]] = {}
    for name, table in [*TABLES.items(), ("every output", GENERIC)]:
        for rule in table:
            owners.setdefault(id(rule), (rule, []))[1].append(name)
    rows = ["| platforms | secret kind | example (the secret is `SECRET`) |", "|---|---|---|"]
    for rule, names in owners.values():
        example = rule.example.strip().replace("\n", " / ").replace("|", "\\|")
        kind = rule.kind.replace("|", "\\|")
        rows.append(f"| {', '.join(names)} | {kind} | `{example}` |")
    return "\n".join(rows) + "\n"
