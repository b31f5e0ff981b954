"""The doctor's version: the one place it is written (``from context_doctor.version import
__version__``).

pyproject.toml reads it from here (setuptools' ``attr:``, read from the source without
importing it), and ``--version`` prints it without importlib.metadata, which cost most of
that command's start-up. A leaf module: every part of the doctor may import it
without depending on the package root, whose :func:`context_doctor.diagnose` loads the
whole audit.
"""

__version__ = "0.1.0"
