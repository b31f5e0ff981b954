"""Memory vaults (docs/vaults.md): the names the vault checks share with the vault model.

Kept here, apart from the model, so that importing the checks (every run does, to know
them) loads none of the vault modules, PyYAML among them: those load only when a vault
is audited.
"""

BASTRA_DIR = ".bastra"
AUDIT_LOG = f"{BASTRA_DIR}/audit-log.ndjson"

# What Bastra makes of a note (a note's ``MemoryFacts.status``).
PLAIN = "plain"  # not a memory: left alone
MEMORY = "memory"  # Bastra loads it (perhaps repaired)
REJECTED = "rejected"  # typed as a memory, but Bastra's loader throws it out
UNKNOWN_TYPE = "unknown-type"  # `id` and `recall_when`, but a type Bastra does not know
EMPTY = "empty"  # nothing but whitespace (Obsidian's note for a clicked unresolved link)
UNREADABLE = "unreadable"  # not UTF-8, or too large to read
