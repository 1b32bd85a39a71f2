"""See __init__.py."""
from dataclasses import dataclass  # noqa: F401
