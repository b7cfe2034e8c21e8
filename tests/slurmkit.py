"""A real single-node Slurm cluster for tests: munged with a throwaway key, slurmctld and
slurmd from Debian's `slurm-wlm`, all in a temp folder on free local ports, with a generated
slurm.conf. The node is `gpu01` (NodeHostname this machine, NodeAddr 127.0.0.1), so a task
srun starts there runs with SLURMD_NODENAME=gpu01, the inventory host it stands for.

`SlurmCluster.start` waits until `sinfo` shows the node idle; `stop` ends the three daemons it
started (by their process, never by name). `binaries_or_reason` installs the packages when
they are missing and the tests run as root with apt-get (as .ci/run does), else says why not.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DAEMONS = {"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd"}
CLIENTS = ("srun", "sinfo")
NODE = "gpu01"
START_TIMEOUT = 60.0


def _find(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def _missing() -> list[str]:
    return [name for name in (*DAEMONS, *CLIENTS) if _find(name) is None]


def binaries_or_reason() -> str | None:
    """None when Slurm and munge are usable (installed now if need be), else why not."""
    if not _missing():
        return None
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        return f"Slurm/munge not installed ({', '.join(_missing())}) and no root apt-get here"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "slurm-wlm", "munge"]
    for argv in (install, ["apt-get", "update", "-qq"], install):
        subprocess.run(argv, env=env, capture_output=True, timeout=900, check=False)
        if not _missing():
            return None
    return f"Slurm/munge could not be installed with apt-get (missing {', '.join(_missing())})"


def _free_ports(count: int) -> list[int]:
    """`count` distinct free ports: all bound at once (one closed before the next was asked
    for could be handed out again, and slurmctld and slurmd would then share a port)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in socks]


CONF = """\
ClusterName=fltest{tag}
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser={user}
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={root}/munge.sock
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/linear
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName={node} NodeHostname={host} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""


@dataclass
class SlurmCluster:
    """The daemons of one test cluster and the environment its clients need."""

    root: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        """What srun and sinfo need to find this cluster."""
        return {"SLURM_CONF": str(self.conf)}

    def start(self) -> None:
        """Write the key and slurm.conf, start munged, slurmctld, slurmd; wait for idle."""
        for sub in ("state", "spool"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        key = self.root / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        ctld_port, slurmd_port = _free_ports(2)
        self.conf.write_text(
            CONF.format(
                tag=os.getpid(),
                host=socket.gethostname().split(".")[0],
                ctld_port=ctld_port,
                slurmd_port=slurmd_port,
                user=os.environ.get("USER") or "root",
                root=self.root,
                node=NODE,
            )
        )
        r = self.root
        self._daemon(
            "munged",
            "--foreground",
            "--force",
            f"--key-file={key}",
            f"--socket={r}/munge.sock",
            f"--pid-file={r}/munged.pid",
            f"--log-file={r}/munged.log",
            f"--seed-file={r}/munge.seed",
        )
        self._wait((r / "munge.sock").exists, "munged socket")
        self._daemon("slurmctld", "-D", "-i", "-f", str(self.conf))
        self._daemon("slurmd", "-D", "-N", NODE, "-f", str(self.conf))
        self._wait(self._idle, f"sinfo showing {NODE} idle")

    def _daemon(self, name: str, *args: str) -> None:
        binary = _find(name)
        assert binary is not None
        log = open(self.root / f"{name}.out", "wb")  # noqa: SIM115 - lives as long as the daemon
        env = {**os.environ, **self.env}
        self.procs.append(
            subprocess.Popen([binary, *args], stdout=log, stderr=subprocess.STDOUT, env=env)
        )

    def _idle(self) -> bool:
        sinfo = _find("sinfo")
        assert sinfo is not None
        done = subprocess.run(
            [sinfo, "-h", "-o", "%T", "-n", NODE],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        return done.stdout.strip() == "idle"

    def _wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if ready():
                return
            dead = [p for p in self.procs if p.poll() is not None]
            if dead:
                break
            time.sleep(0.2)
        logs = {p.name: p.read_text()[-2000:] for p in sorted(self.root.glob("*.out"))}
        logs |= {p.name: p.read_text()[-2000:] for p in sorted(self.root.glob("*.log"))}
        raise RuntimeError(f"Slurm test cluster: no {what} in time; logs: {logs}")

    def stop(self) -> None:
        """End the daemons this cluster started, last first."""
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()
