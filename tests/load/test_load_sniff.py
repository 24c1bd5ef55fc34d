"""A file that is no profile at all gets a hint (gzip, zstd, xz, bzip2, zip, JSON, text); a damaged one does not."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from builders import S, T, columns_from_tiles, write_with_pycapnp
from cli_run import run_cli

import ipu_nb
from ipu_nb._load import Decoder
from ipu_nb._load._sniff import looks_like


@pytest.fixture
def profile_bytes(tmp_path: Path) -> bytes:
    tiles = [T(3, [S(0, 100, "compute", "op", "gemm", metadata=[("role", "matmul")])])]
    return write_with_pycapnp(columns_from_tiles(tiles), tmp_path / "real.capnp").read_bytes()


def _zip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("profile.capnp", data)
    return buffer.getvalue()


# What each kind of file is made from a real profile's bytes, and the message it must get.
WRAPPED: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "gzip": (gzip.compress, "(looks gzip-compressed); decompress it first (gunzip)"),
    "xz": (lzma.compress, "(looks xz-compressed); decompress it first (unxz)"),
    "bzip2": (bz2.compress, "(looks bzip2-compressed); decompress it first (bunzip2)"),
    "zip": (_zip, "(looks like a zip archive); extract the profile from it first"),
    "zstd": (lambda data: b"\x28\xb5\x2f\xfd\x24\x00" + data, "(looks zstd-compressed); decompress it first (unzstd)"),
    "json": (lambda _: b'{\n  "clockHz": 1500000000,\n  "groups": []\n}\n', "(looks like JSON text)"),
    "text": (lambda _: "tiles=3 samples=1/1 spanCycles=100 …\n".encode(), "(looks like text)"),
    "html": (lambda _: b"<!doctype html><html><body>report</body></html>", "(looks like HTML or XML text)"),
}


@pytest.mark.parametrize("decoder", ["fast", "reference"])
@pytest.mark.parametrize("kind", sorted(WRAPPED))
def test_the_hint_names_what_the_file_looks_like(
    tmp_path: Path, profile_bytes: bytes, kind: str, decoder: Decoder
) -> None:
    wrap, message = WRAPPED[kind]
    path = tmp_path / f"p.{kind}"
    path.write_bytes(wrap(profile_bytes))
    with pytest.raises(ipu_nb.NotAProfileError) as caught:
        ipu_nb.open_profile(path, decoder=decoder, cache=False)
    assert str(caught.value) == f"{path}: not a Cap'n Proto message {message}"
    assert isinstance(caught.value, ipu_nb.ProfileFormatError) and caught.value.path == path
    assert isinstance(caught.value.__cause__, ipu_nb.ProfileFormatError)  # the wire-level reason is kept


def test_the_cli_prints_the_hint_as_one_line(tmp_path: Path, profile_bytes: bytes, capsys) -> None:
    path = tmp_path / "p.capnp.gz"
    path.write_bytes(gzip.compress(profile_bytes))
    code, out, err = run_cli(capsys, "profile-query", str(path))
    assert (code, out) == (1, "")
    assert err == f"ipu-nb profile-query: error: {path}: not a Cap'n Proto message (looks gzip-compressed); " \
        "decompress it first (gunzip)\n"  # fmt: skip


@pytest.mark.parametrize("cut", [7, 8, 40, -8, -1])
def test_a_damaged_profile_gets_no_hint(tmp_path: Path, profile_bytes: bytes, cut: int) -> None:
    path = tmp_path / "cut.capnp"
    path.write_bytes(profile_bytes[:cut])
    with pytest.raises(ipu_nb.ProfileFormatError) as caught:
        ipu_nb.open_profile(path, cache=False)
    assert not isinstance(caught.value, ipu_nb.NotAProfileError)
    assert "truncated" in str(caught.value)


def test_looks_like() -> None:
    assert looks_like(b"") is None
    assert looks_like(b"\x00\x00\x00\x00\x10\x00\x00\x00") is None  # a one-segment table
    assert looks_like(b"\x05\x00\x00\x00garbage!") is None
    assert looks_like(bytes(range(1, 200))) is None  # binary, not text
    assert looks_like("naïve text, cut mid-character: é".encode()[:-1]) == ("looks like text", "")
    assert looks_like(b"\xef\xbb\xbf  [1, 2]") == ("looks like JSON text", "")
