"""Live collection over SSH into a snapshot, read-only by construction (docs/collect.md).

    base.py         the seam: Collector (opens) and Session (sends one command) Protocols, types
    netmiko_ssh.py  the netmiko Collector: netmiko connects (imported lazily), then
    shell.py        ShellChannel reads the shell by pattern (prompt, echo), never by fixed sleeps
    plan.py         a platform's command plan; GuardedSession refuses non-allowlisted commands
    facts.py        napalm facts (EOS) over the same guarded session
    device.py       one device: retries for transient errors, facts, redaction
    pool.py         bounded worker pool with per-device deadlines, one session per host:port
    store.py        atomic snapshot folder (temp folder, manifest last, rename)
    run.py          collect(fabric_dir, options) -> CollectResult (for `collect` and `check --live`)
    credentials.py  env vars / prompt, Secret, scrubbing of reasons
    errors.py       exceptions -> status + one-line reason; legacy.py names legacy SSH algorithms
    redact.py       secrets removed from collected text before it is written, driven by
    redaction/      one table of secret kinds per platform plus a generic one (tables.py)
    limit.py        --limit expressions; overlay.py: inventory overlays (host/port/credentials)

The commands themselves live in the platform descriptors (fabriclint/platforms/); the allowlist
check over them is fabriclint/commands.py.
"""
