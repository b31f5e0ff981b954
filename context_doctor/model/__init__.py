"""The project model: files read once, parsed lazily, shared by every check."""
