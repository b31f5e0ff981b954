"""The text and file guards every room stands on: bounded reads and parses, inert output, one walk, contained paths,
an isolated interpreter (docs/architecture.md). They import nothing of the rooms above them."""
