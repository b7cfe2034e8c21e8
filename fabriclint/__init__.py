"""fabriclint: prove a GPU-cluster fabric is configured as intended."""

__version__ = "0.1.0"
