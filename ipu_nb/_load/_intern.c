/* Interning of Cap'n Proto Text fields: the loader's hot loop, in C.
 *
 * A full-size profile has ~28M Text pointers (operation, kernel, metadata names and values).
 * For each, numpy needs a dozen whole-array passes (gather the pointer word, check it,
 * gather the bytes, hash them): two thirds of the load. Here one pass per batch resolves
 * each pointer and looks its text up in a table of distinct texts that persists across
 * batches, so codes come out global, in first-occurrence order.
 *
 * Only the common case is resolved here: null, near and single-far pointers to texts (and
 * composite lists) inside their segment, NUL-terminated. Anything else (a double-far pointer,
 * a wrong kind, an out-of-bounds or unterminated text) makes a batch decline, and the caller
 * resolves it with the general numpy path (which names the error), interning the resolved
 * (offset, length) pairs with `ipu_intern_resolved`. Every address is checked before it is
 * read, and a declined batch leaves the table as if its texts so far had been interned.
 *
 * Every call is bounded by a `Cursor`: before a text is hashed its traversal words are taken
 * from `work`, and before a new distinct text is copied its memory cost from `memory` (the
 * caller lends both from the message's budgets). When the next text does not fit, the call
 * stops (NEED_WORK / NEED_MEMORY, with `want` and where it stopped) and the caller charges
 * more or refuses the file; a call never works past its allowance, so it also returns to
 * Python often enough for Ctrl-C and for a failing sibling chunk to stop it.
 *
 * hatch_build.py compiles this (with _guard.c) into a plain shared library, called through
 * ctypes (which releases the GIL, so two chunks decode at once).
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IPU_INTERN_ABI 10

/* The hot path (resolve, hash, look up) inlined into each loop; the cold one (a new text) not. */
#if defined(__GNUC__)
#define INLINE inline __attribute__((always_inline))
#define COLD __attribute__((noinline))
#else
#define INLINE inline
#define COLD
#endif

#define TEXT_MASK ((UINT64_C(7) << 32) | UINT64_C(3))
#define TEXT_TAG ((UINT64_C(2) << 32) | UINT64_C(1))
#define NOT_FAST (-1)
#define NO_MEMORY (-2)
#define OUT_OF_BOUNDS (-3)
#define NEED_WORK 1
#define NEED_MEMORY 2

/* A distinct text: its hash, length and where its bytes start in the table's store. */
typedef struct {
    uint64_t hash;
    int64_t len, start;
} Value;

typedef struct {
    /* Open addressing: per slot, the value's code + 1 in the low half (0: empty) and the
     * high half of its hash in the high half, so most mismatches cost no other lookup. */
    uint64_t *slots;
    uint64_t mask; /* slots - 1 (a power of two) */
    Value *values; /* per code */
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
    free(t->values);
    free(t->store);
    free(t);
}

int64_t ipu_table_count(const Table *t) { return t->count; }

/* The distinct texts' lengths added up. */
int64_t ipu_table_total_length(const Table *t) { return t->total_len; }

/* Copy out the distinct texts in code order: their lengths, and their bytes back to back. */
void ipu_table_values(const Table *t, int64_t *lens, uint8_t *data) {
    for (int64_t c = 0; c < t->count; c++) {
        lens[c] = t->values[c].len;
        memcpy(data, t->store + t->values[c].start, (size_t)t->values[c].len);
        data += t->values[c].len;
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
static INLINE uint64_t hash_text(const uint8_t *p, int64_t len) {
    uint64_t h = (uint64_t)len * UINT64_C(0x9E3779B97F4A7C15);
    int64_t full = len >> 3;
    for (int64_t k = 0; k < full; k++) h = mix(h, load_word(p + 8 * k));
    int64_t tail = len & 7;
    if (tail) h = mix(h, load_word(p + 8 * full) & ((UINT64_C(1) << (8 * tail)) - 1));
    h *= UINT64_C(0x94D049BB133111EB);
    return h ^ (h >> 29);
}

/* Whether the `len` bytes at `a` and `b` are equal (both readable as hash_text reads them). */
static INLINE int same_text(const uint8_t *a, const uint8_t *b, int64_t len) {
    int64_t full = len >> 3;
    for (int64_t k = 0; k < full; k++)
        if (load_word(a + 8 * k) != load_word(b + 8 * k)) return 0;
    int64_t tail = len & 7;
    uint64_t keep = (UINT64_C(1) << (8 * tail)) - 1;
    return !tail || ((load_word(a + 8 * full) ^ load_word(b + 8 * full)) & keep) == 0;
}

#define HIGH(h) ((h) & UINT64_C(0xFFFFFFFF00000000))

static int grow_slots(Table *t) {
    uint64_t size = (t->mask + 1) * 2;
    uint64_t *slots = calloc(size, sizeof *slots);
    if (!slots) return 0;
    for (int64_t c = 0; c < t->count; c++) {
        uint64_t h = t->values[c].hash, s = h & (size - 1);
        while (slots[s]) s = (s + 1) & (size - 1);
        slots[s] = HIGH(h) | (uint64_t)(c + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return 1;
}

/* Room for one more value and `words` more words of store. */
static int reserve(Table *t, int64_t words) {
    if (t->count == t->capacity) {
        int64_t c = t->capacity ? 2 * t->capacity : 1024;
        Value *values = realloc(t->values, (size_t)c * sizeof *values);
        if (!values) return 0;
        t->values = values;
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

/* Probes of a lookup paid for by the text itself: a longer probe sequence (texts crafted to collide
 * in the table) costs a word a probe, and a failed comparison of equal hashes the text's bytes. */
#define FREE_PROBES 8

/* The code of the `len` bytes at `p` (hash `h`), or -1 with *slot the empty slot where it belongs.
 * Work beyond FREE_PROBES is added to *work, to be charged after the fact (it may overdraw the
 * allowance: the caller's next check stops the call, and the debt is charged when it settles). */
static INLINE int64_t lookup(const Table *t, const uint8_t *p, int64_t len, uint64_t h, uint64_t *slot, int64_t *work) {
    uint64_t s = h & t->mask;
    int64_t probes = 0;
    for (uint64_t used; (used = t->slots[s]) != 0; s = (s + 1) & t->mask) {
        if (++probes > FREE_PROBES) *work += 8;
        if (HIGH(used) != HIGH(h)) continue;
        int64_t c = (int64_t)(used & 0xFFFFFFFF) - 1;
        const Value *v = &t->values[c];
        if (v->hash != h || v->len != len) continue;
        if (same_text(t->store + v->start, p, len)) return c;
        *work += 8 + len;
    }
    *slot = s;
    return -1;
}

/* Add the `len` bytes at `p` (hash `h`, not in the table, belonging at `s`); its code, or -1: out of memory. */
static COLD int64_t insert(Table *t, const uint8_t *p, int64_t len, uint64_t h, uint64_t s) {
    int64_t words = (len >> 3) + 1;
    if (t->count >= INT64_C(0xFFFFFFFF) - 1 || !reserve(t, words)) return -1;
    if (2 * (uint64_t)(t->count + 1) > t->mask + 1) {
        if (!grow_slots(t)) return -1;
        for (s = h & t->mask; t->slots[s]; s = (s + 1) & t->mask) {
        }
    }
    int64_t c = t->count++;
    uint8_t *copy = t->store + t->stored;
    memset(copy + 8 * (words - 1), 0, 8);
    memcpy(copy, p, (size_t)len);
    t->slots[s] = HIGH(h) | (uint64_t)(c + 1);
    t->values[c] = (Value){h, len, t->stored};
    t->stored += 8 * words;
    t->total_len += len;
    return c;
}

/* What a call may spend and where it stopped (see the top of this file). */
typedef struct {
    int64_t work;        /* traversal bytes it may still spend */
    int64_t memory;      /* memory-budget bytes it may still spend on new distinct texts */
    int64_t want;        /* on NEED_WORK / NEED_MEMORY: what the next text needs */
    int64_t next;        /* the next pointer (entries: row) to intern: where a call starts and stops */
    int64_t list, at;    /* entries: the list holding row `next`, and the row's position in it */
    int64_t end;         /* the byte just past the last text so far */
    int64_t value_bytes; /* a new distinct text of n bytes costs value_bytes + byte_cost * n of memory */
    int64_t byte_cost;
} Cursor;

/* Entries remember the code at this many positions of a list (metadata names repeat list to list). */
#define HINTS 64

/* Intern the text of `len` bytes at byte `start` (0: null, the empty text) into *code: its traversal
 * cost (a word for the pointer, one for a single-far landing pad when `far`, and its bytes with the
 * NUL) must fit the allowance before it is hashed, and if it is new its memory before it is copied.
 * On NEED_MEMORY nothing is spent: the next call starts with this text again. *hint is a code to try
 * before hashing (-1: none; equal bytes are that code, as texts in the table are distinct), and
 * becomes this text's code. */
static INLINE int64_t intern_one(Table *t, const uint8_t *file, int64_t start, int64_t len, int64_t far, Cursor *c,
                                 uint32_t *code, int64_t *hint) {
    int64_t cost = start ? 8 + len + 1 + 8 * far : 8;
    if (cost > c->work) {
        c->want = cost;
        return NEED_WORK;
    }
    const uint8_t *p = file + start;
    int64_t guess = *hint;
    if (guess >= 0 && t->values[guess].len == len && same_text(t->store + t->values[guess].start, p, len)) {
        c->work -= cost; /* the text the caller expected here: no hashing, no probing */
        *code = (uint32_t)guess;
        if (start && start + len + 1 > c->end) c->end = start + len + 1;
        return 0;
    }
    uint64_t h = hash_text(p, len), slot = 0;
    int64_t probed = 0, found = lookup(t, p, len, h, &slot, &probed);
    if (found < 0) {
        int64_t need = c->value_bytes + c->byte_cost * len;
        if (need > c->memory) {
            c->want = need;
            return NEED_MEMORY;
        }
        found = insert(t, p, len, h, slot);
        if (found < 0) return NO_MEMORY;
        c->memory -= need;
    }
    c->work -= cost + probed;
    *code = (uint32_t)found;
    *hint = found;
    if (start && start + len + 1 > c->end) c->end = start + len + 1;
    return 0;
}

/* One framed message: the file's bytes and its segments (absolute word ranges). */
typedef struct {
    const uint8_t *file;
    int64_t words; /* the file's size in whole words */
    const int64_t *seg_start;
    const int64_t *seg_end;
    int64_t segments;
} Frame;

/* A pointer to resolve: its word, where it sits, and the segment words [lo, hi) it may reach. */
typedef struct {
    uint64_t w;
    int64_t at, lo, hi;
} Ptr;

/* Read the pointer word at `at` (in segment words [lo, hi)), following a single-far pointer
 * to its landing pad. 0 when it needs the general path (double-far, a bad far pointer, an
 * address outside the file); a null pointer has w == 0. */
static INLINE int read_pointer(const Frame *m, int64_t at, int64_t lo, int64_t hi, Ptr *p) {
    if (at < 0 || at >= m->words || lo < 0 || hi > m->words) return 0;
    uint64_t w = load_word(m->file + 8 * at);
    if ((w & 3) == 2) {
        uint64_t segment = w >> 32;
        if ((w & 4) || segment >= (uint64_t)m->segments) return 0;
        lo = m->seg_start[segment];
        hi = m->seg_end[segment];
        at = lo + (int64_t)((w >> 3) & ((UINT64_C(1) << 29) - 1));
        if (at >= hi || hi > m->words) return 0;
        w = load_word(m->file + 8 * at);
        if (w == 0 || (w & 3) == 2) return 0; /* a pad must be an ordinary pointer */
    }
    p->w = w;
    p->at = at;
    p->lo = lo;
    p->hi = hi;
    return 1;
}

/* The word a struct or list pointer's signed 30-bit offset points to. */
static int64_t target_of(const Ptr *p) { return p->at + 1 + ((int64_t)(int32_t)(uint32_t)p->w >> 2); }

/* Where the Text that the pointer at word `at` points to lies: *start and *len (null reads as
 * empty), and *far whether it was reached through a (single) far pointer. 0 when the pointer
 * needs the general path. */
static INLINE int resolve_text(const Frame *m, int64_t at, int64_t lo, int64_t hi, int64_t *start, int64_t *len,
                        int64_t *far) {
    Ptr p;
    *start = *len = *far = 0;
    if (!read_pointer(m, at, lo, hi, &p)) return 0;
    *far = p.at != at;
    if (!p.w) return 1;
    if ((p.w & TEXT_MASK) != TEXT_TAG) return 0;
    int64_t target = target_of(&p), count = (int64_t)(p.w >> 35);
    if (count == 0 || target < p.lo || target * 8 + count > p.hi * 8) return 0;
    if (m->file[target * 8 + count - 1] != 0) return 0;
    *start = target * 8;
    *len = count - 1;
    return 1;
}

/* A batch of `n` pointer words at word addresses `addr`: absent (read as null) where `present`
 * is given and present[i] == 0; each may reach segment words [lo[i], hi[i]), or [seg_lo, seg_hi)
 * for all when `lo` is NULL. */
#define BATCH_ARGS                                                                                           \
    const Frame *m, const int64_t *addr, const uint8_t *present, const int64_t *lo, const int64_t *hi, \
        int64_t seg_lo, int64_t seg_hi, int64_t n
#define PRESENT(i) (!present || present[i])
#define LO(i) (lo ? lo[i] : seg_lo)
#define HI(i) (lo ? hi[i] : seg_hi)

/* Intern the Texts the batch's pointers point to (null reads as the empty string) into codes[i],
 * from pointer c->next on. Returns 0 (c->next == n), NEED_WORK or NEED_MEMORY (call again once
 * the cursor's allowance is topped up), NOT_FAST (pointer c->next needs the general path; the
 * texts before it are interned) or NO_MEMORY. */
int64_t ipu_intern_pointers(Table *t, BATCH_ARGS, uint32_t *codes, Cursor *out) {
    Cursor c = *out; /* a local copy the compiler keeps in registers; written back when the call stops */
    int64_t hint = -1;   /* the previous row's code: runs of equal texts skip the hash */
    for (int64_t i = c.next; i < n; i++) {
        int64_t start = 0, len = 0, far = 0;
        int64_t found = NOT_FAST;
        if (!PRESENT(i) || resolve_text(m, addr[i], LO(i), HI(i), &start, &len, &far))
            found = intern_one(t, m->file, start, len, far, &c, &codes[i], &hint);
        if (found) {
            c.next = i;
            *out = c;
            return found;
        }
    }
    c.next = n;
    *out = c;
    return 0;
}

/* A struct list: its first element's word, element count, data words and pointers per element,
 * the segment words it lies in, and the words the numpy path charges for it. */
typedef struct {
    int64_t first, count, data_words, pointers, lo, hi, cost;
} List;

/* The struct list the pointer at word `at` points to: null (count 0), or a composite list of
 * structs of at least one word each inside its segment. 0 when it needs the general path. */
static int resolve_list(const Frame *m, int64_t at, int64_t lo, int64_t hi, List *list) {
    Ptr p;
    memset(list, 0, sizeof *list);
    if (!read_pointer(m, at, lo, hi, &p)) return 0;
    if (!p.w) return 1;
    if ((p.w & 3) != 1 || ((p.w >> 32) & 7) != 7) return 0;
    int64_t tag_at = target_of(&p), list_words = (int64_t)(p.w >> 35);
    if (tag_at < p.lo || tag_at + 1 + list_words > p.hi) return 0;
    uint64_t tag = load_word(m->file + 8 * tag_at);
    int64_t count = (int64_t)((tag >> 2) & ((UINT64_C(1) << 30) - 1));
    int64_t dw = (int64_t)((tag >> 32) & 0xFFFF), pc = (int64_t)(tag >> 48);
    if ((tag & 3) != 0 || count >= (INT64_C(1) << 29) || dw + pc == 0 || count * (dw + pc) > list_words) return 0;
    *list = (List){tag_at + 1, count, dw, pc, p.lo, p.hi, list_words + 1 + (at != p.at)};
    return 1;
}

/* Count the entries of the struct lists the batch's pointers point to: counts[i], *total, and
 * *words to charge to the traversal budget before anything is expanded. 0 or NOT_FAST. */
int64_t ipu_count_entries(BATCH_ARGS, int64_t *counts, int64_t *words, int64_t *total) {
    int64_t sum = 0, charged = 0;
    for (int64_t i = 0; i < n; i++) {
        List list = {0, 0, 0, 0, 0, 0, 0};
        if (PRESENT(i) && !resolve_list(m, addr[i], LO(i), HI(i), &list)) return NOT_FAST;
        counts[i] = list.count;
        sum += list.count;
        charged += list.cost;
    }
    *total = sum;
    *words = charged;
    return 0;
}

/* Intern Text pointer `field` of every entry of those lists (absent pointers read as empty) into
 * codes[row], for the `capacity` rows ipu_count_entries counted, from row c->next (entry c->at of
 * list c->list) on. Returns as ipu_intern_pointers; on NOT_FAST, rows from c->next need the
 * general path. */
int64_t ipu_intern_entries(Table *t, int64_t field, BATCH_ARGS, int64_t capacity, uint32_t *codes, Cursor *out) {
    Cursor c = *out;
    int64_t row = c.next;
    int64_t hints[HINTS]; /* per position in a list: the code the previous list had there */
    for (int64_t k = 0; k < HINTS; k++) hints[k] = -1;
    for (int64_t i = c.list; i < n; i++) {
        List list = {0, 0, 0, 0, 0, 0, 0};
        int64_t j = i == c.list ? c.at : 0;
        int64_t found = NOT_FAST;
        if (PRESENT(i) && !resolve_list(m, addr[i], LO(i), HI(i), &list)) goto stop;
        if (list.count - j > capacity - row) goto stop;
        int64_t stride = list.data_words + list.pointers, at = list.first + list.data_words + field + j * stride;
        for (; j < list.count; j++, row++, at += stride) {
            int64_t start = 0, len = 0, far = 0;
            found = NOT_FAST;
            if (field >= list.pointers || resolve_text(m, at, list.lo, list.hi, &start, &len, &far))
                found = intern_one(t, m->file, start, len, far, &c, &codes[row], &hints[j & (HINTS - 1)]);
            if (found) goto stop;
        }
        continue;
    stop:
        c.list = i;
        c.at = j;
        c.next = row;
        *out = c;
        return found;
    }
    if (row != capacity) return NOT_FAST;
    c.list = n;
    c.at = 0;
    c.next = row;
    *out = c;
    return 0;
}

/* Intern the `n` texts the numpy path resolved, checked and charged (byte offsets and lengths),
 * from c->next on; c->work bounds the call (it is lent, not charged), c->memory pays for new
 * texts. Returns as ipu_intern_pointers, or OUT_OF_BOUNDS. */
int64_t ipu_intern_resolved(Table *t, const Frame *m, const int64_t *byte, const int64_t *len, int64_t n,
                            uint32_t *codes, Cursor *out) {
    Cursor c = *out;
    for (int64_t i = c.next; i < n; i++) {
        /* Word-aligned, with the word holding the NUL inside the file (what hash_text reads). */
        if (byte[i] < 0 || len[i] < 0 || (byte[i] & 7) || byte[i] / 8 + len[i] / 8 >= m->words) return OUT_OF_BOUNDS;
        int64_t hint = -1;
        int64_t found = intern_one(t, m->file, byte[i], len[i], 0, &c, &codes[i], &hint);
        if (found) {
            c.next = i;
            *out = c;
            return found;
        }
    }
    c.next = n;
    *out = c;
    return 0;
}

/* The frame builder's two whole-column passes (called on ranges of rows, one range per thread). */

/* codes[i] = table[codes[i]] for i in [0, n): dictionary codes moved to another numbering in place.
 * Returns -1, or the first i whose code is not below k (the codes from i on are left as they were). */
int64_t ipu_remap_codes(uint32_t *codes, int64_t n, const uint32_t *table, int64_t k) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t c = codes[i];
        if ((int64_t)c >= k) return i;
        codes[i] = table[c];
    }
    return -1;
}

/* For groups of counts[g] consecutive child rows (g in [0, n)), the owner of each child row
 * (first_owner + g) and its position inside its group, written from owner[0] and position[0]. */
void ipu_owner_positions(const int64_t *counts, int64_t n, int64_t first_owner, uint32_t *owner, uint32_t *position) {
    for (int64_t g = 0; g < n; g++) {
        uint32_t who = (uint32_t)(first_owner + g);
        int64_t count = counts[g];
        for (int64_t j = 0; j < count; j++) {
            owner[j] = who;
            position[j] = (uint32_t)j;
        }
        owner += count;
        position += count;
    }
}

/* For the owners of groups of child rows (owner s holds rows [starts[s], starts[s + 1]), s in [0, n)):
 * flags[s] = 1 where some row's code c has hit[c] set (hit: one byte per possible u16 code). Owners
 * whose rows hold no hit are left as they were. */
void ipu_flag_owners(const uint16_t *codes, const uint32_t *starts, int64_t n, const uint8_t *hit, uint8_t *flags) {
    for (int64_t s = 0; s < n; s++) {
        uint8_t any = 0;
        for (uint32_t e = starts[s]; e < starts[s + 1]; e++) any |= hit[codes[e]];
        if (any) flags[s] = 1;
    }
}

/* Metadata pair codes: each entry's (name code, value code) pair numbered in first-occurrence
 * order, into a table of at most PAIRS pairs the caller owns (`keys`: 2 * PAIRS slots, zeroed
 * before the first call; `pair_names`, `pair_values`: PAIRS each; *count pairs so far), so one
 * table spans calls over consecutive ranges of entries. A slot holds the pair as name << 32 |
 * value, plus one (0: empty), and its code beside it in `slot_codes`. Returns the rows coded:
 * n, or fewer when the table is full (the caller keeps the entries' own codes instead). */
#define PAIRS 65536
int64_t ipu_pair_codes(const uint32_t *names, const uint32_t *values, int64_t n, uint16_t *codes, uint64_t *keys,
                       uint16_t *slot_codes, uint32_t *pair_names, uint32_t *pair_values, int64_t *count) {
    const uint64_t mask = 2 * PAIRS - 1;
    int64_t pairs = *count;
    uint64_t last = 0;
    uint16_t last_code = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t key = ((uint64_t)names[i] << 32 | values[i]) + 1; /* never 0: a code is below 2**32 - 1 */
        if (key == last) {
            codes[i] = last_code;
            continue;
        }
        uint64_t s = (key * UINT64_C(0x9E3779B97F4A7C15)) >> 47;
        for (; keys[s & mask] && keys[s & mask] != key; s++) {
        }
        s &= mask;
        if (!keys[s]) {
            if (pairs >= PAIRS) {
                *count = pairs;
                return i;
            }
            keys[s] = key;
            slot_codes[s] = (uint16_t)pairs;
            pair_names[pairs] = names[i];
            pair_values[pairs] = values[i];
            pairs++;
        }
        codes[i] = slot_codes[s];
        last = key;
        last_code = codes[i];
    }
    *count = pairs;
    return n;
}
