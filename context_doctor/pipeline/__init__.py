"""The pipeline one audit runs through: discover → prepare → engine → suppress → report (docs/architecture.md)."""
