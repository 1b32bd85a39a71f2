"""Stand-in for pydantic on the device machine (not installed there, no network): Transformer Engine 2.9 imports
only pydantic.dataclasses.dataclass, for its recipe classes; the standard library dataclass is used in its place
(no field validation)."""
