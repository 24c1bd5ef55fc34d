"""Typed errors raised while reading a profile file."""

from __future__ import annotations

__all__ = ["NotAProfileError", "ProfileFormatError", "UnsupportedSchemaVersionError"]


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


class NotAProfileError(ProfileFormatError):
    """The file is something else altogether: `looks` says what (``"looks gzip-compressed"``), `advice` what to do."""

    def __init__(self, path: object, looks: str, advice: str = "") -> None:
        self.path = path
        self.looks = looks
        self.advice = advice
        super().__init__(f"{path}: not a Cap'n Proto message ({looks})" + (f"; {advice}" if advice else ""))
