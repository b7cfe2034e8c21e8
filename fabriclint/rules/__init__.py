"""Rules: one module per family, each exporting RULES; registry.py concatenates them."""
