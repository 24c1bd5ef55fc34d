"""Text fields decoded by numpy: dictionary-encoded straight from the file bytes.

The fallback for `_intern.NativeTextColumn` (used when the C interner is not built). Each
batch of texts is hashed by Arrow, as fixed-width keys when short or as BinaryView arrays
over the memory-mapped file otherwise, without a Python object per row; batches are merged
into one dictionary in file order; UTF-8 is validated once per distinct value.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._columns import Strings
from ._errors import ProfileFormatError
from ._message import Describe, Message, Seg, Texts

__all__ = ["CodeBuffer", "TextColumn", "TextEncoder", "text_end", "utf8"]

_WINDOW = 1 << 30  # data buffer stride for files over 2 GiB (view offsets are int32)
_32 = np.uint64(32)
#: Byte masks: _MASKS[k] keeps the low k bytes of a word (k = 0..8).
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_56 = np.uint64(56)
#: Texts shorter than this many words (8 bytes each, less the length byte) are encoded by exact key.
_KEY_WORDS = 4
#: _KEY_MASKS[w][n]: the `w` word masks keeping the first n bytes of a text (n < 8 * w).
_KEY_MASKS = {
    w: np.array([[_MASKS[min(max(n - 8 * j, 0), 8)] for j in range(w)] for n in range(8 * w)], dtype=np.uint64)
    for w in (2, _KEY_WORDS)
}


class TextEncoder:
    """Builds BinaryView arrays over one file buffer."""

    def __init__(self, u8: np.ndarray, u64: np.ndarray) -> None:
        self.u64 = u64
        size = len(u8)
        if size < (1 << 31):
            self.buffers = [pa.py_buffer(u8)]
            self.windowed = False
        else:
            self.buffers = [
                pa.py_buffer(u8[start : min(size, start + 2 * _WINDOW)]) for start in range(0, size, _WINDOW)
            ]
            self.windowed = True

    def views(self, byte: np.ndarray, length: np.ndarray) -> pa.Array:
        """A BinaryView array of the texts at word-aligned `byte` addresses with `length` bytes.

        Strings of up to 12 bytes are inlined (zero-padded, as Arrow requires); longer ones
        keep a 4-byte prefix and point into the file buffer.
        """
        n = len(byte)
        ubyte = byte.view(np.uint64)
        ulen = length.view(np.uint64)
        w0 = self.u64[byte >> 3] & _MASKS[np.minimum(length, 8)]
        inline = length <= 12
        lo = ulen | (w0 << _32)
        if self.windowed:
            window = byte // _WINDOW
            far = window.view(np.uint64) | ((byte - window * _WINDOW).view(np.uint64) << _32)
        else:
            far = ubyte << _32
        hi = np.where(inline, w0 >> _32, far)
        second = np.flatnonzero(inline & (length > 8))
        if len(second):
            w1 = self.u64[(byte[second] >> 3) + 1] & _MASKS[length[second] - 8]
            hi[second] |= w1 << _32
        out = np.empty(2 * n, dtype=np.uint64)
        out[0::2] = lo
        out[1::2] = hi
        return pa.Array.from_buffers(pa.binary_view(), n, [None, pa.py_buffer(out), *self.buffers])

    def encode(self, byte: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
        """(codes uint32, the distinct values in code order) for one chunk of texts."""
        if len(byte) == 0:
            return np.zeros(0, dtype=np.uint32), []
        words = int(length.max()) // 8 + 1  # key words: the length byte must lie past the text
        if words <= _KEY_WORDS:
            words = words if words <= 2 else _KEY_WORDS
            first = byte >> 3
            if int(first.max()) <= len(self.u64) - words:
                return self._encode_keys(first, length, words)
        encoded = pc.dictionary_encode(self.views(byte, length))
        codes = np.asarray(encoded.indices).view(np.uint32)
        return codes, encoded.dictionary.cast(pa.binary()).to_pylist()

    def _encode_keys(self, first: np.ndarray, length: np.ndarray, words: int) -> tuple[np.ndarray, list[bytes]]:
        """Short texts (all under `words` words): each text's zero-padded bytes plus its length is an exact key.

        The key is the text's `words` words with bytes past its end masked off and the
        length in the last byte (always past the end), so equal keys mean equal texts, and
        Arrow hashes fixed-width keys about twice as fast as string views.
        """
        ulen = length.view(np.uint64)
        if words == 1:
            key = self.u64[first]
            key &= _MASKS[length]
            key |= ulen << _56
            encoded = pc.dictionary_encode(pa.array(key))
            distinct = [k.to_bytes(8, "little") for k in encoded.dictionary.to_pylist()]
        else:
            # Overlapping `words`-word records starting at every word: one fancy-index gather copies
            # each text's words (numpy copies 16-byte complex items natively, wider ones by memcpy).
            item = np.dtype(np.complex128) if words == 2 else np.dtype((np.void, 8 * words))
            window = np.ndarray((len(self.u64) - words + 1,), dtype=item, buffer=self.u64, strides=(8,))
            key = window[first].view(np.uint64).reshape(-1, words)
            key &= np.take(_KEY_MASKS[words], length, axis=0)
            key[:, -1] |= ulen << _56
            keys = pa.Array.from_buffers(pa.binary(8 * words), len(key), [None, pa.py_buffer(key)])
            encoded = pc.dictionary_encode(keys)
            distinct = encoded.dictionary.to_pylist()
        codes = np.asarray(encoded.indices).view(np.uint32)
        return codes, [k[: k[-1]] for k in distinct]


class CodeBuffer:
    """One text field's codes, appended batch by batch into one growing array.

    Sized from the caller's estimate of the final row count, so its pages are first touched
    while other chunks still decode, rather than by one large concatenation at the end.
    """

    def __init__(self) -> None:
        self.buffer = np.zeros(0, dtype=np.uint32)
        self.size = 0

    def reserve(self, n: int, expected_rows: int = 0) -> np.ndarray:
        """The next `n` rows, to be filled by the caller."""
        end = self.size + n
        if end > len(self.buffer):
            grown = np.empty(max(end, expected_rows, len(self.buffer) * 3 // 2), dtype=np.uint32)
            grown[: self.size] = self.buffer[: self.size]
            self.buffer = grown
        rows = self.buffer[self.size : end]
        self.size = end
        return rows

    def truncate(self, size: int) -> None:
        """Forget the rows from `size` on (a batch that was reserved but not filled)."""
        self.size = size

    def take(self) -> np.ndarray:
        """All codes so far (the buffer is handed over)."""
        codes = self.buffer[: self.size]
        self.buffer = np.zeros(0, dtype=np.uint32)
        self.size = 0
        return codes


class TextColumn:
    """One Text field decoded by numpy: each batch encoded on its own, merged into one dictionary.

    Batches arrive in file order; each batch's small dictionary is mapped into the global
    one (first occurrence order, so the result is deterministic). The global dictionary is
    a Python dict keyed by the raw bytes: batch dictionaries are small, so this costs one
    lookup per distinct value per batch.
    """

    def __init__(self, what: str, msg: Message) -> None:
        self.what = what
        self.msg = msg
        self.encoder = TextEncoder(msg.u8, msg.u64)
        self.index: dict[bytes, int] = {}
        self.codes = CodeBuffer()

    def add(
        self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, describe: Describe, expected_rows: int = 0
    ) -> int:
        """Resolve and append the Texts at pointer words `addr`; returns the end byte of the last one."""
        texts = self.msg.texts(addr, seg, present, self.what, describe)
        codes, dictionary = self.encoder.encode(texts.byte, texts.length)
        index = self.index
        known = len(index)
        new = [value for value in dictionary if value not in index]
        index.update(zip(new, range(known, known + len(new)), strict=True))
        target = self.codes.reserve(len(codes), expected_rows)
        if len(new) < len(dictionary) or known:
            mapping = np.fromiter(map(index.__getitem__, dictionary), dtype=np.uint32, count=len(dictionary))
            if not np.array_equal(mapping, np.arange(len(mapping), dtype=np.uint32)):
                np.take(mapping, codes, out=target)
                return text_end(texts)
        target[...] = codes
        return text_end(texts)

    def finish(self, where: str, describe_row: Describe) -> Strings:
        """The codes so far, with UTF-8 validated once per distinct value."""
        values = pa.array(list(self.index), type=pa.binary())
        self.index = {}
        codes = self.codes.take()
        return Strings(codes, utf8(values, codes, self.what, where, describe_row))


def text_end(texts: Texts) -> int:
    """The byte just past the last of these texts (0 when there are none)."""
    return int((texts.byte + texts.length).max()) if len(texts.byte) else 0


def utf8(values: pa.Array, codes: np.ndarray, what: str, where: str, describe_row: Describe) -> pa.Array:
    """`values` as strings; invalid UTF-8 is an error naming the first row that holds it."""
    try:
        return values.cast(pa.string())
    except pa.ArrowInvalid:
        pass
    for i, raw in enumerate(values.to_pylist()):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            row = int(np.flatnonzero(codes == i)[0])
            at = describe_row(row)
            problem = f"{exc.reason} at byte {exc.start}"
            raise ProfileFormatError(f"{where}: {at}: {what} is not valid UTF-8 ({problem})") from None
    raise ProfileFormatError(f"{where}: {what} is not valid UTF-8")
