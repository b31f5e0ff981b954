"""Configuration: the settings a run resolves once, and where the Synthesis Console keeps its files (docs/configuration.md)."""
