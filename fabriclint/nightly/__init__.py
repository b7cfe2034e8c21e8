"""`fabriclint nightly`: check a night's snapshot, record it in the history, write the morning
report (Markdown, JSON, a self-contained HTML page) and the Prometheus metrics."""
