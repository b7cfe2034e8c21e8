"""inventories/roce-pod described as each source would hold it (written here, independently of
its inventory.yaml, which the tests compare the imports with)."""

from __future__ import annotations

from pathlib import Path

import yaml

SWITCHES = {
    "spine01": ("spine", "192.0.2.10"),
    "spine02": ("spine", "192.0.2.11"),
    "leaf01": ("leaf", "192.0.2.12"),
    "leaf02": ("leaf", "192.0.2.13"),
    "leaf03": ("leaf", "192.0.2.14"),
    "leaf04": ("leaf", "192.0.2.15"),
}
HOSTS = {
    "gpu01": ("192.0.2.16", ["h100", "rack-a"]),
    "gpu02": ("192.0.2.17", ["h100", "rack-a"]),
    "gpu03": ("192.0.2.18", ["h100", "rack-b"]),
    "gpu04": ("192.0.2.19", ["h100", "rack-b"]),
}
CABLES = [
    ("leaf01", "Ethernet33/1", "spine01", "Ethernet1/1"),
    ("leaf01", "Ethernet34/1", "spine02", "Ethernet1/1"),
    ("leaf02", "Ethernet33/1", "spine01", "Ethernet2/1"),
    ("leaf02", "Ethernet34/1", "spine02", "Ethernet2/1"),
    ("leaf03", "Ethernet33/1", "spine01", "Ethernet3/1"),
    ("leaf03", "Ethernet34/1", "spine02", "Ethernet3/1"),
    ("leaf04", "Ethernet33/1", "spine01", "Ethernet4/1"),
    ("leaf04", "Ethernet34/1", "spine02", "Ethernet4/1"),
    ("leaf01", "Ethernet1/1", "gpu01", "ens1np0"),
    ("leaf02", "Ethernet1/1", "gpu01", "ens2np0"),
    ("leaf01", "Ethernet2/1", "gpu02", "ens1np0"),
    ("leaf02", "Ethernet2/1", "gpu02", "ens2np0"),
    ("leaf03", "Ethernet1/1", "gpu03", "ens1np0"),
    ("leaf04", "Ethernet1/1", "gpu03", "ens2np0"),
    ("leaf03", "Ethernet2/1", "gpu04", "ens1np0"),
    ("leaf04", "Ethernet2/1", "gpu04", "ens2np0"),
]

MAPPING = """\
name: roce-pod
platforms: {ubuntu-connectx: mlnx-host, linux: mlnx-host}
roles: {gpu-server: gpu, server: gpu}
groups:
  gpu_hosts: {platform: mlnx-host, role: gpu}
  server: {platform: mlnx-host, role: gpu}
credentials:
  eos: {username_env: FABRICLINT_USER, password_env: FABRICLINT_PASSWORD}
  mlnx-host: {username_env: FABRICLINT_HOST_USER, ssh_key: ~/.ssh/fabriclint_ed25519}
"""


def peers_of(device: str) -> dict[str, str]:
    """{local port: 'peer:port'} of one device."""
    out: dict[str, str] = {}
    for a, a_port, b, b_port in CABLES:
        if a == device:
            out[a_port] = f"{b}:{b_port}"
        if b == device:
            out[b_port] = f"{a}:{a_port}"
    return out


def write_mapping(folder: Path) -> Path:
    path = folder / "mapping.yaml"
    path.write_text(MAPPING)
    return path


def write_ansible_ini(folder: Path) -> Path:
    """An INI inventory with host_vars/ YAML files for the cables (as Ansible users split it)."""
    lines = ["[spine]"]
    lines += [f"{n} ansible_host={ip}" for n, (r, ip) in SWITCHES.items() if r == "spine"]
    lines += ["", "[leaf]"]
    lines += [f"{n} ansible_host={ip}" for n, (r, ip) in SWITCHES.items() if r == "leaf"]
    lines += ["", "[gpu_hosts]"]
    lines += [f"{n} ansible_host={ip}" for n, (ip, _) in HOSTS.items()]
    lines += ["", "[switches:children]", "spine", "leaf", ""]
    lines += ["[switches:vars]", "ansible_network_os=arista.eos.eos", ""]
    lines += ["[spine:vars]", "role=spine", "", "[leaf:vars]", "role=leaf", ""]
    path = folder / "hosts.ini"
    path.write_text("\n".join(lines))
    host_vars = folder / "host_vars"
    host_vars.mkdir()
    for name in [*SWITCHES, *HOSTS]:
        data: dict[str, object] = {"fabriclint_peers": peers_of(name)}
        if name in HOSTS:
            data["tags"] = HOSTS[name][1]
        (host_vars / f"{name}.yml").write_text(yaml.safe_dump(data))
    return path


def write_ansible_yaml(folder: Path) -> Path:
    """A YAML inventory: switches by group, GPU hosts with AVD-style ethernet_interfaces."""
    switches = {
        role: {
            "vars": {"role": role},
            "hosts": {
                n: {"ansible_host": ip, "fabriclint_peers": peers_of(n)}
                for n, (r, ip) in SWITCHES.items()
                if r == role
            },
        }
        for role in ("spine", "leaf")
    }
    gpus = {
        n: {
            "ansible_host": ip,
            "fabriclint_platform": "linux",
            "fabriclint_role": "gpu",
            "tags": tags,
            "ethernet_interfaces": [
                {
                    "name": port,
                    "peer": peer.partition(":")[0],
                    "peer_interface": peer.partition(":")[2],
                }
                for port, peer in peers_of(n).items()
            ],
        }
        for n, (ip, tags) in HOSTS.items()
    }
    data = {
        "all": {
            "children": {
                "switches": {
                    "vars": {"ansible_network_os": "arista.eos.eos"},
                    "children": switches,
                },
                "gpus": {"hosts": gpus},
            }
        }
    }
    path = folder / "inventory.yml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def write_nornir(folder: Path) -> Path:
    """SimpleInventory: platform and role inherited from groups, peers in each host's data."""
    hosts: dict[str, object] = {}
    for name, (role, ip) in SWITCHES.items():
        hosts[name] = {
            "hostname": ip,
            "groups": [role],
            "data": {"fabriclint_peers": peers_of(name)},
        }
    for name, (ip, tags) in HOSTS.items():
        hosts[name] = {
            "hostname": ip,
            "groups": ["gpu_hosts"],
            "data": {"tags": tags, "fabriclint_peers": peers_of(name)},
        }
    groups = {
        "switches": {"platform": "arista_eos"},
        "spine": {"groups": ["switches"], "data": {"role": "spine"}},
        "leaf": {"groups": ["switches"], "data": {"role": "leaf"}},
        "gpu_hosts": {"platform": "linux", "data": {"role": "gpu"}},
    }
    (folder / "hosts.yaml").write_text(yaml.safe_dump(hosts))
    (folder / "groups.yaml").write_text(yaml.safe_dump(groups))
    (folder / "defaults.yaml").write_text(yaml.safe_dump({"data": {"site": "pod-a"}}))
    return folder


def write_avd(folder: Path) -> Path:
    """One structured config per switch, as eos_designs writes them; servers only as peers."""
    for name, (role, ip) in SWITCHES.items():
        interfaces = []
        for port, peer in peers_of(name).items():
            peer_name, _, peer_port = peer.partition(":")
            peer_type = (
                "server"
                if peer_name in HOSTS
                else ("spine" if peer_name.startswith("spine") else "l3leaf")
            )
            interfaces.append(
                {
                    "name": port,
                    "peer": peer_name,
                    "peer_interface": peer_port,
                    "peer_type": peer_type,
                    "mtu": 9214,
                }
            )
        config = {
            "hostname": name,
            "type": role,
            "management_interfaces": [
                {"name": "Management1", "ip_address": f"{ip}/24", "type": "oob"}
            ],
            "ethernet_interfaces": interfaces,
        }
        (folder / f"{name}.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return folder
