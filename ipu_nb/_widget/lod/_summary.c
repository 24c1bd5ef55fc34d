/* The timeline's level-of-detail summary in one pass over the samples (lod/summaries.py).
 *
 * `_summarise_disjoint` cuts each sample of a window into a first piece (in cell c0), whole
 * cells, and a last piece (in cell c1), and accumulates coverage, matching coverage and the
 * dominant-class key per cell. numpy does it in a dozen passes over gathered copies of the
 * samples (about 60-100 ns a sample); this does the same arithmetic reading the timeline
 * index in place, in the same order (blocks of IPU_SUMMARY_CHUNK samples, first pieces
 * before last pieces), so the sums come out bit for bit the same. What follows the loop
 * (the running sum of whole-cell owners, the classes) stays in numpy.
 *
 * Rows of a timeline index whose samples never overlap only: each whole cell has one owner.
 * The window's candidates overlap it and have a length, so every offset met is non-negative.
 *
 * `ipu_block_cells` goes further for the timeline's cache blocks: it writes each cell's byte
 * (`cells.cell_bytes`'s `class | level << 5`) as soon as the cell is complete, with no
 * per-cell sums of the whole window, so a block costs a pass over its samples.
 */

#include <stdint.h>
#include <stdlib.h>

#define IPU_SUMMARY_ABI 4
#define IPU_SUMMARY_CHUNK 65536

/* floor and ceil of the non-negative, finite values met here (no libm to link). */
static double floor_nonneg(double x) { return (double)(int64_t)x; }

static double ceil_nonneg(double x) {
    double t = (double)(int64_t)x;
    return t < x ? t + 1.0 : t;
}

int64_t ipu_summary_abi(void) { return IPU_SUMMARY_ABI; }

/* One block of up to IPU_SUMMARY_CHUNK candidates: their cells, pieces and keys, added to the
 * cells in `flush` (first pieces before last pieces), as the numpy loop does per block. */
struct chunk {
    int64_t n;
    int64_t *c0, *c1;
    double *first, *last;
    int32_t *tag;
    uint8_t *good;
};

static void chunk_free(struct chunk *ch) {
    free(ch->c0);
    free(ch->c1);
    free(ch->first);
    free(ch->last);
    free(ch->tag);
    free(ch->good);
}

static int chunk_init(struct chunk *ch) {
    ch->n = 0;
    ch->c0 = malloc(sizeof(int64_t) * IPU_SUMMARY_CHUNK);
    ch->c1 = malloc(sizeof(int64_t) * IPU_SUMMARY_CHUNK);
    ch->first = malloc(sizeof(double) * IPU_SUMMARY_CHUNK);
    ch->last = malloc(sizeof(double) * IPU_SUMMARY_CHUNK);
    ch->tag = malloc(sizeof(int32_t) * IPU_SUMMARY_CHUNK);
    ch->good = malloc(IPU_SUMMARY_CHUNK);
    if (ch->c0 && ch->c1 && ch->first && ch->last && ch->tag && ch->good) return 0;
    chunk_free(ch);
    return -1;
}

/* The window every candidate is cut by, and the cells it is added to. */
struct cells {
    double start, width;
    int64_t bins;
    int clip_start, with_ok;
    double *coverage, *matched;
    int32_t *best, *owner;
};

/* One candidate cut by the window's cells: its first cell a and first piece, its last cell b and
 * last piece (0 when it stays in cell a), and its key tag (matching bit 24, class in bits 0..7;
 * a candidate not matching keeps class 0, grey). */
struct cut {
    int64_t a, b;
    double first, last;
    int32_t tag;
};

static struct cut cut_of(const struct cells *w, double start_f, double end_f, uint8_t cls, int good) {
    struct cut c;
    double u = start_f - w->start;
    if (w->clip_start && u < 0.0) u = 0.0;
    u /= w->width;
    double v = (end_f - w->start) / w->width;
    if (v > (double)w->bins) v = (double)w->bins;
    double m = floor_nonneg(u);
    c.a = (int64_t)m;
    m += 1.0;
    if (v < m) m = v; /* end of the first piece */
    double e = ceil_nonneg(v) - 1.0;
    c.b = (int64_t)e;
    if (e < m) e = m;
    c.first = m - u;
    c.last = v - e;
    c.tag = cls;
    if (!w->with_ok) {
        c.tag |= 1 << 24;
    } else {
        c.tag *= good;
        c.tag |= good << 24;
    }
    return c;
}

/* Cut one candidate (offsets as float64, its row, class and whether it matches) into the chunk. */
static void chunk_add(struct chunk *ch, const struct cells *w, double start_f, double end_f, int64_t row,
                      uint8_t cls, int good) {
    const int32_t whole_key = (int32_t)(65535 << 8 | 1 << 25);
    struct cut c = cut_of(w, start_f, end_f, cls, good);
    int64_t j = ch->n++;
    int64_t base = row * w->bins;
    ch->c0[j] = c.a + base;
    ch->c1[j] = c.b + base;
    ch->first[j] = c.first;
    ch->last[j] = c.last;
    ch->tag[j] = c.tag;
    ch->good[j] = (uint8_t)good;
    if (ch->c1[j] > ch->c0[j]) {
        int32_t owned = c.tag | whole_key;
        w->owner[ch->c0[j] + 1] += owned;
        w->owner[ch->c1[j]] -= owned;
    }
}

static void chunk_flush(struct chunk *ch, const struct cells *w) {
    int64_t n = ch->n;
    const int64_t *c0 = ch->c0, *c1 = ch->c1;
    const double *first = ch->first, *last = ch->last;
    for (int64_t j = 0; j < n; j++) w->coverage[c0[j]] += first[j];
    for (int64_t j = 0; j < n; j++) w->coverage[c1[j]] += last[j];
    if (w->with_ok) {
        for (int64_t j = 0; j < n; j++) w->matched[c0[j]] += first[j] * (double)ch->good[j];
        for (int64_t j = 0; j < n; j++) w->matched[c1[j]] += last[j] * (double)ch->good[j];
    }
    for (int64_t j = 0; j < n; j++) {
        int32_t key = (int32_t)(first[j] * 65535.0);
        key = (int32_t)((uint32_t)key << 8) | ch->tag[j];
        if (key > w->best[c0[j]]) w->best[c0[j]] = key;
    }
    for (int64_t j = 0; j < n; j++) {
        int32_t key = (int32_t)(last[j] * 65535.0);
        key = (int32_t)((uint32_t)key << 8) | ch->tag[j];
        if (key > w->best[c1[j]]) w->best[c1[j]] = key;
    }
    ch->n = 0;
}

/*
 * count     samples (candidates of the window, in the index's row-major order)
 * pos       their positions in the index arrays, or NULL for positions 0 .. count - 1
 * start_f, end_f, row   the index's offsets (float64) and rows (int64), read at pos
 * cls       class of each candidate (uint8, gathered), ok whether it matches (NULL: all do)
 * start, width, bins, clip_start   the window: cells of `width` cycles from `start`
 * coverage, matched   per-cell sums (float64, rows * bins); matched may be coverage itself
 * best      per-cell dominant key (int32), owner per-cell whole-owner differences (int32, cells + 1)
 * Returns 0, or -1 when scratch memory could not be had (nothing then is written).
 */
int64_t ipu_summarise_disjoint(int64_t count, const int64_t *pos, const double *start_f, const double *end_f,
                               const int64_t *row, const uint8_t *cls, const uint8_t *ok, double start, double width,
                               int64_t bins, int clip_start, double *coverage, double *matched, int32_t *best,
                               int32_t *owner) {
    struct chunk ch;
    if (chunk_init(&ch)) return -1;
    struct cells w = {start, width, bins, clip_start, ok != NULL, coverage, matched, best, owner};
    for (int64_t i = 0; i < count; i++) {
        int64_t p = pos ? pos[i] : i;
        chunk_add(&ch, &w, start_f[p], end_f[p], row[p], cls[i], ok ? ok[i] != 0 : 1);
        if (ch.n == IPU_SUMMARY_CHUNK) chunk_flush(&ch, &w);
    }
    chunk_flush(&ch, &w);
    chunk_free(&ch);
    return 0;
}

/* ---- Cells in their wire form, streamed (lod/cells.py `summary_cells`) ----
 *
 * Candidates in the index's order (by row, then start; a row's samples never overlap) touch,
 * each, its first cell c0, the whole cells strictly after it up to its last cell c1, and c1.
 * A later sample of the row starts at or after this one's end, so it can only add to c1 (or a
 * later cell): at most one cell of a row is open at a time, and every other cell is complete
 * when the next sample arrives. The open cell sums its first pieces, then its last pieces, in
 * sample order, as `chunk_flush` does; whole cells are the owner's class at full coverage. */

struct stream {
    struct cells w;       /* the window; only start, width, bins, clip_start and with_ok are used */
    uint8_t *out;         /* rows * bins cell bytes, zero where nothing is written (empty) */
    int64_t rows, row;    /* the row being written (-1: none yet) */
    int64_t open;         /* its open cell (-1: none) */
    double first, last, mfirst, mlast;
    int32_t best;
};

/* The byte of a cell from its sums and dominant key: `cells.cell_bytes`'s arithmetic (float32 level). */
static uint8_t cell_byte(const struct stream *s) {
    double coverage = s->first + s->last;
    uint8_t cls = (uint8_t)(s->best & 0xFF);
    double shown = coverage;
    if (s->w.with_ok && cls != 0) shown = s->mfirst + s->mlast; /* class 0 (grey) shows all coverage */
    float level = (float)shown;
    if (level > 1.0f) level = 1.0f;
    level *= 7.0f;
    float whole = (float)(int32_t)level;
    if (whole < level) whole += 1.0f;
    return (uint8_t)((uint8_t)whole << 5 | cls);
}

static void stream_close(struct stream *s) {
    if (s->open >= 0) s->out[s->row * s->w.bins + s->open] = cell_byte(s);
    s->open = -1;
}

static void stream_open(struct stream *s, int64_t cell) {
    s->open = cell;
    s->first = s->last = s->mfirst = s->mlast = 0.0;
    s->best = 0;
}

static void stream_piece(struct stream *s, int last, double piece, int32_t tag, int good) {
    if (last) {
        s->last += piece;
        if (s->w.with_ok) s->mlast += piece * (double)good;
    } else {
        s->first += piece;
        if (s->w.with_ok) s->mfirst += piece * (double)good;
    }
    int32_t key = (int32_t)(piece * 65535.0);
    key = (int32_t)((uint32_t)key << 8) | tag;
    if (key > s->best) s->best = key;
}

/* One candidate, cut as `chunk_add` cuts it; -1 when it breaks the order (or lies outside the grid). */
static int stream_add(struct stream *s, double start_f, double end_f, int64_t row, uint8_t cls, int good) {
    const struct cells *w = &s->w;
    struct cut c = cut_of(w, start_f, end_f, cls, good);
    if (row < 0 || row >= s->rows || c.a < 0 || c.a >= w->bins || c.b < c.a || c.b >= w->bins) return -1;
    if (row != s->row) {
        if (row < s->row) return -1;
        stream_close(s);
        s->row = row;
    } else if (s->open > c.a) {
        return -1;
    }
    if (s->open != c.a) {
        stream_close(s);
        stream_open(s, c.a);
    }
    stream_piece(s, 0, c.first, c.tag, good);
    if (c.b == c.a) {
        stream_piece(s, 1, c.last, c.tag, good); /* 0: the sample stays in one cell */
        return 0;
    }
    stream_close(s);
    uint8_t whole = (uint8_t)((c.tag & 0xFF) | 7 << 5);
    uint8_t *cells = s->out + row * w->bins;
    for (int64_t k = c.a + 1; k < c.b; k++) cells[k] = whole;
    stream_open(s, c.b);
    stream_piece(s, 1, c.last, c.tag, good);
    return 0;
}

/*
 * count, pos, start_f, end_f, row, cls, ok, start, width, bins, clip_start   as `ipu_summarise_disjoint`
 * rows      rows of the grid
 * out       rows * bins cell bytes, zeroed by the caller: `class | level << 5` of every touched cell
 * Returns 0, or -1 when the candidates are not in the index's order (then `out` is partly written).
 */
int64_t ipu_block_cells(int64_t count, const int64_t *pos, const double *start_f, const double *end_f,
                        const int64_t *row, const uint8_t *cls, const uint8_t *ok, double start, double width,
                        int64_t bins, int clip_start, int64_t rows, uint8_t *out) {
    struct stream s = {{start, width, bins, clip_start, ok != NULL, NULL, NULL, NULL, NULL}, out, rows, -1, -1,
                       0.0, 0.0, 0.0, 0.0, 0};
    for (int64_t i = 0; i < count; i++) {
        int64_t p = pos ? pos[i] : i;
        if (stream_add(&s, start_f[p], end_f[p], row[p], cls[i], ok ? ok[i] != 0 : 1)) return -1;
    }
    stream_close(&s);
    return 0;
}

/* ---- Shares, streamed (lod/shares.py `share_window`) ----
 *
 * The same walk as `ipu_block_cells`, but each cell keeps how much of it every plane (colour
 * class) covers: the open cell sums its pieces per plane, whole cells are their owner's plane
 * at 255. A closed cell's shares are rounded cumulatively over the planes, as `shares.quantise`
 * does: plane p gets round(255 * (s_0 + ... + s_p)) - round(255 * (s_0 + ... + s_(p-1))). */

#define IPU_MAX_PLANES 256

struct share_stream {
    struct cells w;       /* the window; only start, width, bins and clip_start are used */
    uint8_t *out;         /* planes * rows * bins shares, zeroed by the caller */
    int64_t rows, planes, row, open;
    double sum[IPU_MAX_PLANES];
};

static void share_close(struct share_stream *s) {
    if (s->open < 0) return;
    int64_t cells = s->rows * s->w.bins, at = s->row * s->w.bins + s->open;
    double cum = 0.0;
    int64_t before = 0;
    for (int64_t p = 0; p < s->planes; p++) {
        cum += s->sum[p];
        double c = cum < 1.0 ? cum : 1.0;
        int64_t level = (int64_t)floor_nonneg(c * 255.0 + 0.5);
        s->out[p * cells + at] = (uint8_t)(level - before);
        before = level;
        s->sum[p] = 0.0;
    }
    s->open = -1;
}

static int share_add(struct share_stream *s, double start_f, double end_f, int64_t row, uint8_t slot) {
    const struct cells *w = &s->w;
    struct cut c = cut_of(w, start_f, end_f, 0, 1);
    if (row < 0 || row >= s->rows || slot >= s->planes || c.a < 0 || c.a >= w->bins || c.b < c.a ||
        c.b >= w->bins)
        return -1;
    if (row != s->row) {
        if (row < s->row) return -1;
        share_close(s);
        s->row = row;
    } else if (s->open > c.a) {
        return -1;
    }
    if (s->open != c.a) {
        share_close(s);
        s->open = c.a;
    }
    s->sum[slot] += c.first;
    if (c.b == c.a) {
        s->sum[slot] += c.last; /* 0: the sample stays in one cell */
        return 0;
    }
    share_close(s);
    uint8_t *plane = s->out + slot * s->rows * w->bins + row * w->bins;
    for (int64_t k = c.a + 1; k < c.b; k++) plane[k] = 255;
    s->open = c.b;
    s->sum[slot] += c.last;
    return 0;
}

/*
 * count, pos, start_f, end_f, row   as `ipu_block_cells`; slot   each candidate's plane (uint8)
 * start, width, bins, clip_start    the window; rows, planes   the grid
 * out       planes * rows * bins shares (uint8), zeroed by the caller
 * Returns 0, or -1 when the candidates are not in the index's order (then `out` is partly written).
 */
int64_t ipu_block_shares(int64_t count, const int64_t *pos, const double *start_f, const double *end_f,
                         const int64_t *row, const uint8_t *slot, double start, double width, int64_t bins,
                         int clip_start, int64_t rows, int64_t planes, uint8_t *out) {
    if (planes < 0 || planes > IPU_MAX_PLANES) return -1;
    struct share_stream s;
    struct cells w = {start, width, bins, clip_start, 0, NULL, NULL, NULL, NULL};
    s.w = w;
    s.out = out;
    s.rows = rows;
    s.planes = planes;
    s.row = -1;
    s.open = -1;
    for (int64_t p = 0; p < IPU_MAX_PLANES; p++) s.sum[p] = 0.0;
    for (int64_t i = 0; i < count; i++) {
        int64_t p = pos ? pos[i] : i;
        if (share_add(&s, start_f[p], end_f[p], row[p], slot[i])) return -1;
    }
    share_close(&s);
    return 0;
}

/* ---- The same windows from the samples in file order, before the index is sorted (lod/runs.py) ----
 *
 * Runtime files list each tile's samples as one run in offset order: read run by run in row
 * order, the file's samples are the index's sequence, with no sorted copy. The columns are read
 * where the loader put them, in `pieces` (its chunks): piece k holds the file rows
 * [at[k], at[k + 1]), its column c at cols[c][k]. */

/*
 * pieces, at   the pieces and their first file rows (pieces + 1 values, the last one the count)
 * tile, offset, duration, ids   per piece (uint32, uint64, uint32, uint32)
 * table        row of each physical tile id below table_len (-1: no row)
 * rows         rows; run_first, run_end (out, rows each): each row's run [first, end), empty if none
 * flags        (out) [one run per row in offset order with ids rising, a row's samples overlap, a zero length]
 * Returns 0, or -1 when a tile has no row (then the file is not read this way).
 */
int64_t ipu_runs_find(int64_t pieces, const int64_t *at, const uint32_t *const *tile, const uint64_t *const *offset,
                      const uint32_t *const *duration, const uint32_t *const *ids, const int64_t *table,
                      int64_t table_len, int64_t rows, int64_t *run_first, int64_t *run_end, int64_t *flags) {
    int64_t runs_ok = 1, overlaps = 0, empty = 0, current = -1;
    uint64_t last_offset = 0, last_end = 0;
    uint32_t last_id = 0;
    for (int64_t r = 0; r < rows; r++) run_first[r] = run_end[r] = 0;
    for (int64_t k = 0; k < pieces; k++) {
        for (int64_t j = 0; j < at[k + 1] - at[k]; j++) {
            int64_t i = at[k] + j;
            uint32_t t = tile[k][j];
            if ((int64_t)t >= table_len || table[t] < 0) return -1;
            int64_t r = table[t];
            uint64_t o = offset[k][j];
            uint32_t d = duration[k][j];
            if (d == 0) empty = 1;
            if (i && ids[k][j] <= last_id) runs_ok = 0;
            if (r != current) {
                if (run_end[r] > run_first[r]) runs_ok = 0; /* a second run of that row */
                run_first[r] = i;
                current = r;
            } else {
                if (o < last_offset) runs_ok = 0;
                if (o < last_end) overlaps = 1;
            }
            run_end[r] = i + 1;
            last_offset = o;
            last_end = o + d;
            last_id = ids[k][j];
        }
    }
    flags[0] = runs_ok;
    flags[1] = overlaps;
    flags[2] = empty;
    return 0;
}

/* The piece holding file row i (at[k] <= i < at[k + 1]). */
static int64_t piece_of(int64_t pieces, const int64_t *at, int64_t i) {
    int64_t lo = 0, hi = pieces - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi + 1) / 2;
        if (at[mid] <= i) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/*
 * The candidates of [lo, hi) (overlapping it, with a length), read run by run in the index's order:
 * returns how many, and sets *matched to how many of them ok (per file row, NULL: all) marks; lists
 * their file rows into pos (NULL: not listed; else room for every candidate); with coverage (not
 * NULL) also does `ipu_summarise_disjoint`'s accumulation of them, cls per file row. Returns -1 when
 * scratch memory could not be had (nothing then is written).
 */
int64_t ipu_runs_visit(int64_t pieces, const int64_t *at, const uint64_t *const *offset,
                       const uint32_t *const *duration, int64_t rows, const int64_t *run_first,
                       const int64_t *run_end, const uint8_t *ok, uint64_t lo, uint64_t hi, int64_t *pos,
                       int64_t *matched, const uint8_t *cls, double start, double width, int64_t bins,
                       int clip_start, double *coverage, double *matched_coverage, int32_t *best, int32_t *owner) {
    struct chunk ch;
    if (coverage && chunk_init(&ch)) return -1;
    struct cells w = {start, width, bins, clip_start, ok != NULL, coverage, matched_coverage, best, owner};
    int64_t count = 0, good = 0;
    for (int64_t r = 0; r < rows; r++) {
        if (run_end[r] <= run_first[r]) continue;
        for (int64_t k = piece_of(pieces, at, run_first[r]), i = run_first[r]; i < run_end[r]; k++) {
            int64_t stop = at[k + 1] < run_end[r] ? at[k + 1] : run_end[r];
            const uint64_t *o = offset[k];
            const uint32_t *d = duration[k];
            for (int64_t j = i - at[k]; i < stop; i++, j++) {
                if (d[j] == 0 || o[j] + d[j] <= lo || o[j] >= hi) continue;
                if (pos) pos[count] = i;
                count++;
                int is_ok = ok ? ok[i] != 0 : 1;
                good += is_ok;
                if (!coverage) continue;
                chunk_add(&ch, &w, (double)o[j], (double)(o[j] + d[j]), r, cls[i], is_ok);
                if (ch.n == IPU_SUMMARY_CHUNK) chunk_flush(&ch, &w);
            }
        }
    }
    if (coverage) {
        chunk_flush(&ch, &w);
        chunk_free(&ch);
    }
    *matched = good;
    return count;
}
