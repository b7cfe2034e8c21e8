"""The mapping file of `fabriclint inventory import --mapping FILE` (YAML).

```yaml
name: roce-pod                       # the inventory's name (default: the output folder's)
platforms: {arista-eos: eos}         # source platform word -> platform key
roles: {leaf-switch: leaf}           # source role word -> role name
groups:                              # Ansible/Nornir group -> what its hosts are
  gpu_hosts: {platform: mlnx-host, role: gpu}
names:                               # device-name glob -> the same, as a last resort
  "gpu*": {platform: mlnx-host, role: gpu}
credentials:                         # role or platform key -> environment variable names
  eos: {username_env: FABRICLINT_USER, password_env: FABRICLINT_PASSWORD}
```
"""

from __future__ import annotations

from pydantic import Field

from fabriclint.models.inventory import Credentials, PlatformName, Strict


class GroupMapping(Strict):
    """What the hosts of one Ansible/Nornir group are, when they do not say it themselves."""

    platform: PlatformName | None = None
    """Platform key of the group's hosts."""
    role: str | None = None
    """Role of the group's hosts."""


class MappingFile(Strict):
    """Source words to fabriclint's platform keys and roles."""

    name: str | None = None
    """The inventory's name."""
    platforms: dict[str, PlatformName] = Field(default_factory=dict)
    """Source platform (NetBox slug, ansible_network_os, Nornir platform) -> platform key."""
    roles: dict[str, str] = Field(default_factory=dict)
    """Source role -> role name."""
    groups: dict[str, GroupMapping] = Field(default_factory=dict)
    """Group -> platform and role of its hosts."""
    names: dict[str, GroupMapping] = Field(default_factory=dict)
    """Device-name glob (`gpu*`) -> platform and role, when nothing else gives them."""
    credentials: dict[str, Credentials] = Field(default_factory=dict)
    """Role or platform key -> names of the environment variables holding credentials."""
