"""Where a growing Cap'n Proto builder puts each object: segment by segment, far pointers across them.

The writer (`ipu_nb._io.capnp_writer`) lays a whole message out at once; this is its
allocation rule, kept apart because it is the one part that must match capnp's builder
for the files to be framed like the runtime's.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_SEGMENT_WORDS", "place_objects"]

#: A far pointer addresses a landing pad with 29 bits of word offset.
MAX_SEGMENT_WORDS = (1 << 29) - 1
#: Objects placed per vectorised step of the layout (bounds its temporaries).
_LAYOUT_WINDOW = 1 << 21


def place_objects(
    size: np.ndarray, parent: np.ndarray, first_words: int, max_words: int, single: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Assign every object a global word address, segment by segment, as a growing builder would.

    Objects are placed in order; one that does not fit opens a new segment of
    max(its size, total allocated so far) words (capped by `max_words`). An object whose
    parent lies in an earlier segment is far-addressed; in single mode its landing pad
    takes the word just before it. Returns addresses, far flags, segment starts and used sizes
    (the global address space is the segments' used words, concatenated).
    """
    n = len(size)
    addr = np.empty(n, dtype=np.int64)
    far = np.zeros(n, dtype=bool)
    starts: list[int] = []
    used_sizes: list[int] = []
    pad = int(single)
    base, used, capacity, i0 = 0, 1, first_words, 0  # word 0 of segment 0 is the root pointer
    owner = -1  # parents with an index >= owner live in the current segment (the root in segment 0)
    allocated = first_words
    while True:
        while i0 < n and used < capacity:
            room = capacity - used
            window = min(n - i0, room, _LAYOUT_WINDOW)  # every object takes at least one word
            stop = i0 + window
            crosses = parent[i0:stop] < owner
            cost = size[i0:stop].astype(np.int64)
            if pad:
                cost += crosses
            total = np.cumsum(cost)
            k = int(np.searchsorted(total, room, side="right"))
            if k:
                placed = base + used + total[:k] - cost[:k]
                if pad:
                    placed += crosses[:k]
                addr[i0 : i0 + k] = placed
                far[i0 : i0 + k] = crosses[:k]
                used += int(total[k - 1])
                i0 += k
            if k < window:
                break  # the next object does not fit: this segment is full
        starts.append(base)
        used_sizes.append(used)
        if i0 >= n:
            break
        need = int(size[i0]) + pad
        if need > MAX_SEGMENT_WORDS:
            raise ValueError(f"an object of {need} words is larger than a Cap'n Proto segment can address")
        base += used
        capacity = max(need, min(allocated, max_words))
        allocated += capacity
        used = 0
        owner = i0
    return addr, far, np.array(starts, dtype=np.int64), np.array(used_sizes, dtype=np.int64)
