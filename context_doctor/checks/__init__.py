"""Built-in checks, one module per family; installed as ``context_doctor.checks``."""
