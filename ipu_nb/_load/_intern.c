/* Interning of Cap'n Proto Text fields: the loader's hot loop, in C.
 *
 * A full-size profile has ~28M Text pointers (operation, kernel, metadata names and values).
 * For each, numpy needs a dozen whole-array passes (gather the pointer word, check it,
 * gather the bytes, hash them): two thirds of the load. Here one pass per batch resolves
 * each pointer and looks its text up in a table of distinct texts that persists across
 * batches, so codes come out global, in first-occurrence order.
 *
 * Only the common case is resolved here: null pointers and near byte-list pointers inside
 * their segment, NUL-terminated. Anything else (a far pointer, a wrong kind, an out-of-bounds
 * or unterminated text) makes `ipu_intern_pointers` decline the batch, and the caller
 * resolves it with the general numpy path (which follows far pointers or names the error)
 * and interns the resolved (offset, length) pairs with `ipu_intern_resolved`. Every address
 * is checked before it is read.
 *
 * hatch_build.py compiles this into a plain shared library, called through ctypes (which
 * releases the GIL, so two chunks decode at once).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IPU_INTERN_ABI 3

#define TEXT_MASK ((UINT64_C(7) << 32) | UINT64_C(3))
#define TEXT_TAG ((UINT64_C(2) << 32) | UINT64_C(1))
#define NOT_FAST (-1)
#define NO_MEMORY (-2)
#define OUT_OF_BOUNDS (-3)

typedef struct {
    uint32_t *slots;  /* code + 1 per slot, 0 when empty */
    uint64_t mask;    /* slots - 1 (a power of two) */
    uint64_t *hashes; /* per code */
    int64_t *lens;    /* per code: the text's length */
    int64_t *starts;  /* per code: where its bytes start in `store` */
    int64_t count, capacity;
    uint8_t *store; /* the distinct texts' bytes, each word-aligned and padded with zeros past its end */
    int64_t stored, store_capacity, total_len;
} Table;

int64_t ipu_intern_abi(void) { return IPU_INTERN_ABI; }

Table *ipu_table_new(void) {
    Table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->slots = calloc(1024, sizeof *t->slots);
    t->mask = 1023;
    if (!t->slots) {
        free(t);
        return NULL;
    }
    return t;
}

void ipu_table_free(Table *t) {
    if (!t) return;
    free(t->slots);
    free(t->hashes);
    free(t->lens);
    free(t->starts);
    free(t->store);
    free(t);
}

int64_t ipu_table_count(const Table *t) { return t->count; }

/* The distinct texts' lengths added up. */
int64_t ipu_table_total_length(const Table *t) { return t->total_len; }

/* Copy out the distinct texts in code order: their lengths, and their bytes back to back. */
void ipu_table_values(const Table *t, int64_t *lens, uint8_t *data) {
    for (int64_t c = 0; c < t->count; c++) {
        lens[c] = t->lens[c];
        memcpy(data, t->store + t->starts[c], (size_t)t->lens[c]);
        data += t->lens[c];
    }
}

static uint64_t load_word(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

static uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * UINT64_C(0xBF58476D1CE4E5B9);
    return h ^ (h >> 31);
}

/* Hash of the `len` bytes at `p`. Texts are word-aligned and NUL-terminated, so the word
 * holding byte `len` is readable whole; bytes past the text are masked off. */
static uint64_t hash_text(const uint8_t *p, int64_t len) {
    uint64_t h = (uint64_t)len * UINT64_C(0x9E3779B97F4A7C15);
    int64_t full = len >> 3;
    for (int64_t k = 0; k < full; k++) h = mix(h, load_word(p + 8 * k));
    int64_t tail = len & 7;
    if (tail) h = mix(h, load_word(p + 8 * full) & ((UINT64_C(1) << (8 * tail)) - 1));
    h *= UINT64_C(0x94D049BB133111EB);
    return h ^ (h >> 29);
}

/* Whether the `len` bytes at `a` and `b` are equal (both readable as hash_text reads them). */
static int same_text(const uint8_t *a, const uint8_t *b, int64_t len) {
    int64_t full = len >> 3;
    for (int64_t k = 0; k < full; k++)
        if (load_word(a + 8 * k) != load_word(b + 8 * k)) return 0;
    int64_t tail = len & 7;
    uint64_t keep = (UINT64_C(1) << (8 * tail)) - 1;
    return !tail || ((load_word(a + 8 * full) ^ load_word(b + 8 * full)) & keep) == 0;
}

static int grow_slots(Table *t) {
    uint64_t size = (t->mask + 1) * 2;
    uint32_t *slots = calloc(size, sizeof *slots);
    if (!slots) return 0;
    for (int64_t c = 0; c < t->count; c++) {
        uint64_t s = t->hashes[c] & (size - 1);
        while (slots[s]) s = (s + 1) & (size - 1);
        slots[s] = (uint32_t)(c + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 1;
}

/* Room for one more code (its hash, length and start) and `words` more words of store. */
static int reserve(Table *t, int64_t words) {
    if (t->count == t->capacity) {
        int64_t c = t->capacity ? 2 * t->capacity : 1024;
        uint64_t *hashes = realloc(t->hashes, (size_t)c * sizeof *hashes);
        if (!hashes) return 0;
        t->hashes = hashes;
        int64_t *lens = realloc(t->lens, (size_t)c * sizeof *lens);
        if (!lens) return 0;
        t->lens = lens;
        int64_t *starts = realloc(t->starts, (size_t)c * sizeof *starts);
        if (!starts) return 0;
        t->starts = starts;
        t->capacity = c;
    }
    if (t->stored + 8 * words > t->store_capacity) {
        int64_t c = t->store_capacity ? 2 * t->store_capacity : 8192;
        while (c < t->stored + 8 * words) c *= 2;
        uint8_t *store = realloc(t->store, (size_t)c);
        if (!store) return 0;
        t->store = store;
        t->store_capacity = c;
    }
    return 1;
}

/* The code of the `len` bytes at `p`, added to the table if new (-1: out of memory). */
static int64_t intern(Table *t, const uint8_t *p, int64_t len) {
    uint64_t h = hash_text(p, len);
    uint64_t s = h & t->mask;
    for (uint32_t slot; (slot = t->slots[s]) != 0; s = (s + 1) & t->mask) {
        int64_t c = slot - 1;
        if (t->hashes[c] == h && t->lens[c] == len && same_text(t->store + t->starts[c], p, len)) return c;
    }
    int64_t words = (len >> 3) + 1;
    if (!reserve(t, words)) return -1;
    if (2 * (uint64_t)(t->count + 1) > t->mask + 1) {
        if (!grow_slots(t)) return -1;
        for (s = h & t->mask; t->slots[s]; s = (s + 1) & t->mask) {
        }
    }
    int64_t c = t->count++;
    uint8_t *copy = t->store + t->stored;
    memset(copy + 8 * (words - 1), 0, 8);
    memcpy(copy, p, (size_t)len);
    t->slots[s] = (uint32_t)(c + 1);
    t->hashes[c] = h;
    t->lens[c] = len;
    t->starts[c] = t->stored;
    t->stored += 8 * words;
    t->total_len += len;
    return c;
}

/* Intern the Texts that the `n` pointer words at word addresses `addr` point to (a pointer
 * is absent, and reads as null, where `present` is given and present[i] == 0). Texts must
 * lie in their pointer's segment: words [lo[i], hi[i]) of the `size`-byte `file`, or
 * [seg_lo, seg_hi) for all when `lo` is NULL. Null pointers read as the empty string.
 *
 * Writes codes[i]; returns 0, or NOT_FAST (*stop: the first pointer needing the general
 * path; texts interned before it stay interned), or NO_MEMORY. *words gets the words to
 * charge to the traversal budget (as the numpy path counts them), *end the byte just past
 * the last text. */
int64_t ipu_intern_pointers(Table *t, const uint8_t *file, int64_t size, const int64_t *addr,
                            const uint8_t *present, const int64_t *lo, const int64_t *hi, int64_t seg_lo,
                            int64_t seg_hi, int64_t n, uint32_t *codes, int64_t *stop, int64_t *words,
                            int64_t *end) {
    int64_t file_words = size >> 3, bytes = 0, last = 0, i = 0, result = NOT_FAST;
    for (; i < n; i++) {
        int64_t start = 0, len = 0;
        if (!present || present[i]) {
            int64_t a = addr[i];
            if (a < 0 || a >= file_words) goto done;
            uint64_t w = load_word(file + 8 * a);
            if (w) {
                int64_t l = lo ? lo[i] : seg_lo, h = lo ? hi[i] : seg_hi;
                if ((w & TEXT_MASK) != TEXT_TAG || l < 0 || h > file_words) goto done;
                int64_t target = a + 1 + ((int64_t)(int32_t)(uint32_t)w >> 2); /* signed 30-bit offset */
                int64_t count = (int64_t)(w >> 35);
                if (count == 0 || target < l || target * 8 + count > h * 8) goto done;
                start = target * 8;
                if (file[start + count - 1] != 0) goto done;
                len = count - 1;
                bytes += count;
                if (start + count > last) last = start + count;
            }
        }
        int64_t c = intern(t, file + start, len);
        if (c < 0) {
            result = NO_MEMORY;
            goto done;
        }
        codes[i] = (uint32_t)c;
    }
    *words = bytes / 8 + n;
    *end = last;
    result = 0;
done:
    *stop = i;
    return result;
}

/* Intern `n` texts already resolved (and checked) by the numpy path: byte offsets and lengths. */
int64_t ipu_intern_resolved(Table *t, const uint8_t *file, int64_t size, const int64_t *byte, const int64_t *len,
                            int64_t n, uint32_t *codes) {
    for (int64_t i = 0; i < n; i++) {
        /* Word-aligned, with the word holding the NUL inside the file (what hash_text reads). */
        if (byte[i] < 0 || len[i] < 0 || (byte[i] & 7) || byte[i] > size - (len[i] | 7) - 1) return OUT_OF_BOUNDS;
        int64_t c = intern(t, file + byte[i], len[i]);
        if (c < 0) return NO_MEMORY;
        codes[i] = (uint32_t)c;
    }
    return 0;
}
