"""Checks shared by the loader's tests: a bad message must fail the same way in every decoder."""

from __future__ import annotations

import pytest

from ipu_nb._load._errors import ProfileFormatError
from ipu_nb._load._frames import build_profile
from ipu_nb._load._reference import decode_reference_bytes
from ipu_nb._load._wire import TextPath, decode_bytes


def fast_error(data: bytes, *fragments: str, text_path: TextPath = "auto") -> str:
    """`data` is refused by the fast decoder (with `text_path`) in one line holding every fragment."""
    with pytest.raises(ProfileFormatError) as info:
        build_profile(decode_bytes(data, text_path=text_path))
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message
    return message


def reference_rejects(data: bytes) -> None:
    with pytest.raises(ProfileFormatError):
        build_profile(decode_reference_bytes(data))
