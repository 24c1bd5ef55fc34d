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
 */

#include <stdint.h>
#include <stdlib.h>

#define IPU_SUMMARY_ABI 1
#define IPU_SUMMARY_CHUNK 65536

/* floor and ceil of the non-negative, finite values met here (no libm to link). */
static double floor_nonneg(double x) { return (double)(int64_t)x; }

static double ceil_nonneg(double x) {
    double t = (double)(int64_t)x;
    return t < x ? t + 1.0 : t;
}

int64_t ipu_summary_abi(void) { return IPU_SUMMARY_ABI; }

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
    const int32_t whole_key = (int32_t)(65535 << 8 | 1 << 25);
    int64_t *c0 = malloc(sizeof(int64_t) * IPU_SUMMARY_CHUNK);
    int64_t *c1 = malloc(sizeof(int64_t) * IPU_SUMMARY_CHUNK);
    double *first = malloc(sizeof(double) * IPU_SUMMARY_CHUNK);
    double *last = malloc(sizeof(double) * IPU_SUMMARY_CHUNK);
    int32_t *tag = malloc(sizeof(int32_t) * IPU_SUMMARY_CHUNK);
    if (!c0 || !c1 || !first || !last || !tag) {
        free(c0);
        free(c1);
        free(first);
        free(last);
        free(tag);
        return -1;
    }
    for (int64_t lo = 0; lo < count; lo += IPU_SUMMARY_CHUNK) {
        int64_t n = count - lo < IPU_SUMMARY_CHUNK ? count - lo : IPU_SUMMARY_CHUNK;
        for (int64_t j = 0; j < n; j++) {
            int64_t i = lo + j;
            int64_t p = pos ? pos[i] : i;
            double u = start_f[p] - start;
            if (clip_start && u < 0.0) u = 0.0;
            u /= width;
            double v = (end_f[p] - start) / width;
            if (v > (double)bins) v = (double)bins;
            double m = floor_nonneg(u);
            int64_t a = (int64_t)m;
            m += 1.0;
            if (v < m) m = v; /* end of the first piece */
            double e = ceil_nonneg(v) - 1.0;
            int64_t b = (int64_t)e;
            if (e < m) e = m;
            int64_t base = row[p] * bins;
            c0[j] = a + base;
            c1[j] = b + base;
            first[j] = m - u;
            last[j] = v - e; /* 0 when the sample stays in one cell */
            int32_t t = cls[i];
            if (!ok) {
                t |= 1 << 24;
            } else {
                int32_t good = ok[i] != 0;
                t *= good;
                t |= good << 24;
            }
            tag[j] = t;
            if (c1[j] > c0[j]) {
                int32_t owned = t | whole_key;
                owner[c0[j] + 1] += owned;
                owner[c1[j]] -= owned;
            }
        }
        for (int64_t j = 0; j < n; j++) coverage[c0[j]] += first[j];
        for (int64_t j = 0; j < n; j++) coverage[c1[j]] += last[j];
        if (ok) {
            for (int64_t j = 0; j < n; j++) matched[c0[j]] += first[j] * (double)(ok[lo + j] != 0);
            for (int64_t j = 0; j < n; j++) matched[c1[j]] += last[j] * (double)(ok[lo + j] != 0);
        }
        for (int64_t j = 0; j < n; j++) {
            int32_t key = (int32_t)(first[j] * 65535.0);
            key = (int32_t)((uint32_t)key << 8) | tag[j];
            if (key > best[c0[j]]) best[c0[j]] = key;
        }
        for (int64_t j = 0; j < n; j++) {
            int32_t key = (int32_t)(last[j] * 65535.0);
            key = (int32_t)((uint32_t)key << 8) | tag[j];
            if (key > best[c1[j]]) best[c1[j]] = key;
        }
    }
    free(c0);
    free(c1);
    free(first);
    free(last);
    free(tag);
    return 0;
}
