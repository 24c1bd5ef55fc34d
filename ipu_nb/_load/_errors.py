"""Typed errors raised while reading a profile file."""

from __future__ import annotations

__all__ = ["ProfileFormatError", "UnsupportedSchemaVersionError"]


class ProfileFormatError(ValueError):
    """The file is not a readable cycle profile: truncated, corrupt or not Cap'n Proto.

    The message is one line naming what is wrong and where (byte offset, segment,
    tile or sample), so the CLI can print it as it is.
    """


class UnsupportedSchemaVersionError(ProfileFormatError):
    """The profile declares a schema version this reader cannot decode."""

    def __init__(self, version: int, supported: range) -> None:
        self.version = version
        self.supported = supported
        super().__init__(
            f"unsupported profile schema version {version} "
            f"(this reader decodes versions {supported.start} to {supported.stop - 1})"
        )
