"""Text fields decoded by numpy: dictionary-encoded straight from the file bytes.

The fallback for `_intern.NativeTextColumn` (used when the C interner is not built). Each
batch of texts is hashed by Arrow, as fixed-width keys when short or as BinaryView arrays
over the memory-mapped file otherwise, without a Python object per row; batches are merged
into one dictionary in file order; UTF-8 is validated once per distinct value.

Bounded like the C path: `Message.texts` charges every text before it is read; a batch
is hashed in pieces of at most ``PIECE_BYTES`` bytes of text (Arrow copies each piece's
distinct values), a longer text on its own without a copy; each new distinct value is
charged to the memory budget before the dictionary keeps it.
"""

from __future__ import annotations

import hashlib
import mmap

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._model.columns import Strings
from ._errors import ProfileFormatError
from ._message import Describe, Message, Seg, Texts, text_memory

__all__ = ["CodeBuffer", "TextColumn", "TextEncoder", "text_end", "utf8"]

_WINDOW = 1 << 30  # data buffer stride for files over 2 GiB (view offsets are int32)
#: Bytes of text Arrow hashes (and copies the distinct values of) at once.
PIECE_BYTES = 1 << 23
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
    """One text field's codes, appended batch by batch into one array that grows with them.

    Sized from `capacity` when the file states the row count (samples), else grown as rows
    arrive, never sized from a guess at the rows still to come. The codes live in an
    anonymous memory map, which grows by doubling without copying (mremap, where the
    kernel has it: its pages are touched once, as rows are written); elsewhere, or if a
    view of it is still alive, growing copies the codes into a new map.
    """

    def __init__(self, capacity: int = 0) -> None:
        self._map = _anonymous(capacity)
        self.size = 0

    @property
    def capacity(self) -> int:
        return len(self._map) // 4

    def reserve(self, n: int) -> np.ndarray:
        """The next `n` rows, to be filled by the caller (before the next `reserve`)."""
        end = self.size + n
        if end > self.capacity:
            rows = max(end, 2 * self.capacity, 1 << 14)
            try:
                self._map.resize(4 * rows)
            except (BufferError, OSError, SystemError, ValueError):  # no mremap here, or a view still alive
                grown = _anonymous(rows)
                grown[: 4 * self.size] = self._map[: 4 * self.size]
                self._map = grown
        rows_view = np.frombuffer(self._map, dtype=np.uint32, count=n, offset=4 * self.size)
        self.size = end
        return rows_view

    def truncate(self, size: int) -> None:
        """Forget the rows from `size` on (a batch that was reserved but not filled)."""
        self.size = size

    def take(self) -> np.ndarray:
        """All codes so far (the buffer is handed over)."""
        codes = np.frombuffer(self._map, dtype=np.uint32, count=self.size)
        self._map = _anonymous(0)
        self.size = 0
        return codes


def _anonymous(rows: int) -> mmap.mmap:
    """Zeroed private memory for `rows` codes (pages are only committed as they are written)."""
    flags = getattr(mmap, "MAP_PRIVATE", 0) | getattr(mmap, "MAP_ANONYMOUS", 0)
    size = max(4 * rows, mmap.PAGESIZE)
    memory = mmap.mmap(-1, size, flags=flags) if flags else mmap.mmap(-1, size)
    if hasattr(mmap, "MADV_HUGEPAGE"):  # as numpy does for large arrays: far fewer page faults (kept by mremap)
        memory.madvise(mmap.MADV_HUGEPAGE)
    return memory


class TextColumn:
    """One Text field decoded by numpy: each batch encoded on its own, merged into one dictionary.

    Batches arrive in file order; each batch's small dictionary is mapped into the global
    one (first occurrence order, so the result is deterministic). The global dictionary is
    a Python dict keyed by the raw bytes: batch dictionaries are small, so this costs one
    lookup per distinct value per batch.
    """

    def __init__(self, what: str, msg: Message, capacity: int = 0) -> None:
        """`capacity`: the rows the field will hold, when the file states it (and the budget paid for them)."""
        self.what = what
        self.msg = msg
        self.encoder = TextEncoder(msg.u8, msg.u64)
        self.index: dict[bytes, int] = {}
        #: The texts longer than a piece, by digest (they are looked up without a copy).
        self._long: dict[bytes, list[tuple[int, bytes]]] = {}
        self.codes = CodeBuffer(capacity)

    def add(self, addr: np.ndarray, seg: Seg, present: np.ndarray | None, describe: Describe) -> int:
        """Resolve and append the Texts at pointer words `addr`; returns the end byte of the last one."""
        texts = self.msg.texts(addr, seg, present, self.what, describe)
        target = self.codes.reserve(len(texts.byte))
        ends = np.cumsum(texts.length)
        lo = 0
        while lo < len(target):
            # The next piece: texts up to PIECE_BYTES in all, or one longer text on its own.
            hi = int(np.searchsorted(ends, (int(ends[lo - 1]) if lo else 0) + PIECE_BYTES, side="right"))
            if hi <= lo:
                self._add_long(int(texts.byte[lo]), int(texts.length[lo]), target[lo : lo + 1], describe, lo)
                hi = lo + 1
            else:
                self._add_piece(texts.byte[lo:hi], texts.length[lo:hi], target[lo:hi], describe, lo)
            lo = hi
            if lo < len(target):
                self.msg.stop_if_cancelled()
        return text_end(texts)

    def _add_piece(self, byte: np.ndarray, length: np.ndarray, target: np.ndarray, describe: Describe, i: int) -> None:
        codes, dictionary = self.encoder.encode(byte, length)
        index = self.index
        known = len(index)
        new = [value for value in dictionary if value not in index]
        if new:
            self.msg.charge_memory(
                text_memory(sum(map(len, new)), len(new), numpy=True),
                lambda: f"{self.what}: {describe(i)} (distinct texts)",
            )
        index.update(zip(new, range(known, known + len(new)), strict=True))
        if len(new) < len(dictionary) or known:
            mapping = np.fromiter(map(index.__getitem__, dictionary), dtype=np.uint32, count=len(dictionary))
            if not np.array_equal(mapping, np.arange(len(mapping), dtype=np.uint32)):
                np.take(mapping, codes, out=target)
                return
        target[...] = codes

    def _add_long(self, byte: int, length: int, target: np.ndarray, describe: Describe, i: int) -> None:
        """One text longer than a piece: found by a digest of the file's bytes, copied only if new."""
        view = memoryview(self.msg.u8[byte : byte + length])
        digest = hashlib.blake2b(view, digest_size=16).digest()
        for code, value in self._long.get(digest, ()):
            if view == value:
                target[0] = code
                return
        self.msg.charge_memory(text_memory(length, numpy=True), lambda: f"{self.what}: {describe(i)} (distinct texts)")
        value = bytes(view)
        code = self.index.setdefault(value, len(self.index))
        self._long.setdefault(digest, []).append((code, value))
        target[0] = code

    def finish(self, where: str, describe_row: Describe) -> Strings:
        """The codes so far, with UTF-8 validated once per distinct value."""
        values = pa.array(list(self.index), type=pa.binary())
        self.index, self._long = {}, {}
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
    step = 4096  # values are copied to Python a slice at a time
    pieces = ((lo, values.slice(lo, step).to_pylist()) for lo in range(0, len(values), step))
    for i, raw in ((lo + k, raw) for lo, piece in pieces for k, raw in enumerate(piece)):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            row = int(np.flatnonzero(codes == i)[0])
            at = describe_row(row)
            problem = f"{exc.reason} at byte {exc.start}"
            raise ProfileFormatError(f"{where}: {at}: {what} is not valid UTF-8 ({problem})") from None
    raise ProfileFormatError(f"{where}: {what} is not valid UTF-8")
