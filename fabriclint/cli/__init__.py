"""The typer CLI: one module per command group, thin over the engine."""
