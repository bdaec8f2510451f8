"""Integrations with other tools (each needs its own extra)."""
