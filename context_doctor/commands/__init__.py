"""The subcommands, one module each; ``context_doctor.cli`` registers them on the group."""
