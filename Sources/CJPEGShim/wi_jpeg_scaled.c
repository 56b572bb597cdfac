// A scaled decoder for baseline JPEGs: the planes libjpeg-turbo's jpeg_read_raw_data
// gives at 1/8 and 1/4, byte for byte, without the values no reduced IDCT reads.
//
// Which JPEGs: sequential Huffman-coded 8-bit files whose first scan holds every
// component, 1 (grey) or 3 (YCbCr, luma sampled 1 or 2 times per axis, chroma once:
// 4:4:4, 4:2:2, 4:4:0, 4:2:0), with or without restart intervals; everything else
// (progressive, arithmetic, 12-bit, CMYK and YCCK, other samplings, other scales) is
// declined before anything is decoded and stays with libjpeg-turbo (wi_jpeg_scaled_setup.c
// decides, from libjpeg's own parse of the headers).
//
// Why: at 1/8 a block's output is its DC value alone (libjpeg's 1×1 IDCT), and at 1/4 its
// 2×2 IDCT reads 25 of the 64 coefficients (rows and columns 0, 1, 3, 5, 7), yet
// libjpeg-turbo works out every AC value of every block. Here the AC data of DC-only
// blocks is skipped several symbols per table lookup, without values
// (wi_jpeg_scaled_huffman.c); elsewhere one or two coefficients come per lookup, and
// values no IDCT reads land in a dump slot. The IDCTs are libjpeg's arithmetic
// (wi_jpeg_scaled_idct.c), so the planes are libjpeg's. On 6 and 12 MP 4:2:0 photos
// this decodes at 1/8 in ~0.70-0.75 of libjpeg-turbo's CPU time, at 1/4 in ~1.03-1.15×
// (libjpeg-turbo's Huffman decoder is faster than the one-or-two-coefficient lookups
// here, which every coefficient a 2×2 or 4×4 IDCT reads still needs);
// wi_jpeg_decoder_output.c uses it where it pays. The set: this file (the block walk), wi_jpeg_scaled_reader.c (bits, markers,
// restarts), _huffman.c (tables), _idct.c, _setup.c (the choice), _rgb.c (RGBA rows).
//
// Data libjpeg-turbo would have to repair (too short, a code not in the table, restart
// markers missing or out of order, fill bytes inside the data) returns WI_SCALED_IRREGULAR:
// the caller discards the planes and lets libjpeg-turbo decode the file, so its recovery
// stays the only one.
#include "wi_jpeg_scaled_reader.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Zigzag order to natural order, with libjpeg's 16 extra entries: corrupt runs that step
// past the last coefficient write to it, as libjpeg's do.
static const uint8_t natural_order[80] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13,
    6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
    39, 46, 53, 60, 61, 54, 47, 55, 62, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/// The block's DC difference added to the component's prediction (int arithmetic that
/// wraps, kept as a 16-bit coefficient, as libjpeg keeps it). 0 for a bad code.
static inline __attribute__((always_inline)) int decode_dc(reader *r, const wi_scaled_huffman *t, int *prediction, int16_t *coef) {
    if (r->count < 32) {
        refill(r);
    }
    int size = decode(r, t);
    if (size < 0) {
        return 0;
    }
    int diff = size ? receive_extend(r, size) : 0;
    *prediction = (int)((unsigned)*prediction + (unsigned)diff);
    *coef = (int16_t)*prediction;
    return 1;
}

/// Walks a block's AC symbols without their values. 0 for a bad code. The bit buffer is
/// kept in locals through the walk: the reader lives in memory (its address escapes), and a
/// store and reload of `bits` per lookup would sit on the walk's latency chain.
static inline __attribute__((always_inline)) int skip_ac(reader *r, const wi_scaled_huffman *t) {
    const uint16_t *skip = t->skip;
    uint64_t bits = r->bits;
    int count = r->count;
    for (int k = 1; k < 64;) {
        // A lookup reads and consumes at most WI_SCALED_SKIP_BITS bits.
        if (count < WI_SCALED_SKIP_BITS) {
            r->bits = bits;
            r->count = count;
            refill(r);
            bits = r->bits;
            count = r->count;
        }
        unsigned entry = skip[bits >> (64 - WI_SCALED_SKIP_BITS)];
        int before_last = (int)(entry >> 9);
        if (entry != 0 && k + before_last < 64) {
            int n = (int)(entry & 15);
            bits <<= n;
            count -= n;
            if (entry & 16) {
                break;
            }
            k += before_last + (int)((entry >> 5) & 15) + 1;
            continue;
        }
        r->bits = bits;
        r->count = count;
        // A code (16 bits at most) and its value's bits (15).
        if (r->count < 32) {
            refill(r);
        }
        int symbol = decode(r, t);
        if (symbol < 0) {
            return 0;
        }
        int size = symbol & 15, run = symbol >> 4;
        if (size) {
            consume(r, size);
            k += run + 1;
        } else if (run == 15) {
            k += 16;
        } else {
            return 1;
        }
        bits = r->bits;
        count = r->count;
    }
    r->bits = bits;
    r->count = count;
    return 1;
}

/// Decodes a block's AC values into `coef` at the places `slot` gives each zigzag
/// position (64: a dump slot). 0 for a bad code.
static inline __attribute__((always_inline)) int decode_ac(reader *r, const wi_scaled_huffman *t,
                                                           const uint8_t *slot, int16_t *coef) {
    const uint32_t *fast = t->fast;
    uint64_t bits = r->bits;
    int count = r->count;
    for (int k = 1; k < 64; k++) {
        // A lookup reads and consumes at most WI_SCALED_LOOKUP_BITS bits.
        if (count < WI_SCALED_LOOKUP_BITS) {
            r->bits = bits;
            r->count = count;
            refill(r);
            bits = r->bits;
            count = r->count;
        }
        uint32_t entry = fast[bits >> (64 - WI_SCALED_LOOKUP_BITS)];
        unsigned values = (entry >> 6) & 3, first_run = (entry >> 8) & 15;
        // A second symbol (value or end of block) must start inside this block.
        if (entry != 0 && ((values < 2 && !(entry & 0x10)) || k + (int)first_run + 1 < 64)) {
            int n = (int)(entry & 15);
            bits <<= n;
            count -= n;
            if (entry & 0x20) {
                k += 15;
                continue;
            }
            if (values > 0) {
                k += (int)first_run;
                coef[slot[k]] = (int16_t)(int8_t)(entry >> 16);
                if (values > 1) {
                    k += 1 + (int)((entry >> 12) & 15);
                    coef[slot[k]] = (int16_t)(int8_t)(entry >> 24);
                }
            }
            if (entry & 0x10) {
                break;
            }
            continue;
        }
        r->bits = bits;
        r->count = count;
        // A code (16 bits at most) and its value's bits (15).
        if (r->count < 32) {
            refill(r);
        }
        int symbol = decode(r, t);
        if (symbol < 0) {
            return 0;
        }
        int size = symbol & 15, run = symbol >> 4;
        if (size) {
            k += run;
            coef[slot[k]] = (int16_t)receive_extend(r, size);
        } else if (run == 15) {
            k += 15;
        } else {
            return 1;
        }
        bits = r->bits;
        count = r->count;
    }
    r->bits = bits;
    r->count = count;
    return 1;
}

/// Where a 2×2 IDCT's block keeps each zigzag position's value: its natural position
/// for the 25 it reads (rows and columns 0, 1, 3, 5, 7), else a dump slot (64), so the
/// decoder stores every value without a branch. The 4×4 IDCT reads all but row and
/// column 4, so it takes every value (natural_order).
static const uint8_t slot_2x2[80] = {
    0, 1, 8, 64, 9, 64, 3, 64, 64, 24, 64, 25, 64, 11, 64, 5, 64, 64, 64, 64, 40, 64, 41, 64, 27, 64, 13,
    64, 7, 64, 64, 64, 64, 64, 64, 56, 57, 64, 43, 64, 29, 64, 15, 64, 64, 64, 64, 64, 64, 59, 64, 45, 64, 31,
    64, 64, 64, 64, 61, 64, 47, 64, 64, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63};

/// Zeroes the 64 coefficients. Straight-line stores: compilers turn a loop (or a memset)
/// of this size into rep stos, which costs more than many a block's decoding.
static inline __attribute__((always_inline)) void clear(int16_t *coef) {
#if defined(__SSE2__)
    __m128i zero = _mm_setzero_si128();
    __m128i *v = (__m128i *)(void *)coef;
    _mm_store_si128(v + 0, zero);
    _mm_store_si128(v + 1, zero);
    _mm_store_si128(v + 2, zero);
    _mm_store_si128(v + 3, zero);
    _mm_store_si128(v + 4, zero);
    _mm_store_si128(v + 5, zero);
    _mm_store_si128(v + 6, zero);
    _mm_store_si128(v + 7, zero);
#else
    memset(coef, 0, 64 * sizeof coef[0]);
#endif
}

/// Whether any of coefficients 1…63 is not 0 (values a 2×2 IDCT does not read went to
/// the dump slot, 64).
static inline __attribute__((always_inline)) int has_ac(const int16_t *coef) {
#if defined(__SSE2__)
    const __m128i *v = (const __m128i *)(const void *)coef;
    __m128i first = _mm_and_si128(_mm_load_si128(v), _mm_set_epi16(-1, -1, -1, -1, -1, -1, -1, 0));
    __m128i any = _mm_or_si128(_mm_or_si128(_mm_or_si128(first, _mm_load_si128(v + 1)),
                                            _mm_or_si128(_mm_load_si128(v + 2), _mm_load_si128(v + 3))),
                               _mm_or_si128(_mm_or_si128(_mm_load_si128(v + 4), _mm_load_si128(v + 5)),
                                            _mm_or_si128(_mm_load_si128(v + 6), _mm_load_si128(v + 7))));
    return _mm_movemask_epi8(_mm_cmpeq_epi16(any, _mm_setzero_si128())) != 0xFFFF;
#else
    for (int i = 1; i < 64; i++) {
        if (coef[i] != 0) {
            return 1;
        }
    }
    return 0;
#endif
}

static inline __attribute__((always_inline)) int decode_block(reader *r, const wi_scaled_component *c, int *prediction,
                                                              uint8_t *out) {
    int16_t coef[80] __attribute__((aligned(16))); // 64 coefficients, a dump slot, padding
    if (c->scaled == 1) {
        if (!decode_dc(r, c->dc, prediction, coef) || !skip_ac(r, c->ac)) {
            return 0;
        }
        wi_scaled_idct_1x1(coef, c->quant, out, c->stride);
        return 1;
    }
    clear(coef);
    if (!decode_dc(r, c->dc, prediction, coef)) {
        return 0;
    }
    if (!decode_ac(r, c->ac, c->scaled == 2 ? slot_2x2 : natural_order, coef)) {
        return 0;
    }
    if (!has_ac(coef)) {
        wi_scaled_idct_dc(coef, c->quant, out, c->stride, c->scaled);
    } else if (c->scaled == 2) {
        wi_scaled_idct_2x2(coef, c->quant, out, c->stride);
    } else {
        wi_scaled_idct_4x4(coef, c->quant, out, c->stride);
    }
    return 1;
}

wi_scaled_status wi_scaled_decode(wi_scaled_job *job) {
    for (int i = 0; i < job->count; i++) {
        wi_scaled_component *c = &job->component[i];
        c->stride = (size_t)job->mcus_per_row * (size_t)c->h * (size_t)c->scaled;
        c->rows = (size_t)job->mcu_rows * (size_t)c->v * (size_t)c->scaled;
        c->plane = malloc(c->stride * c->rows);
        if (c->plane == NULL || (c->scaled == 1 && !wi_scaled_huffman_build_skip(c->ac)) ||
            (c->scaled > 1 && !wi_scaled_huffman_build_fast(c->ac))) {
            return WI_SCALED_NO_MEMORY;
        }
    }
    reader r;
    wi_scaled_reader_start(&r, job->data, job->data + job->size);
    int prediction[3] = {0, 0, 0};
    unsigned to_go = job->restart_interval, next_restart = 0;
    for (unsigned my = 0; my < job->mcu_rows; my++) {
        for (unsigned mx = 0; mx < job->mcus_per_row; mx++) {
            if (job->restart_interval != 0) {
                if (to_go == 0) {
                    if (!wi_scaled_restart(r, &next_restart, &r)) {
                        return WI_SCALED_IRREGULAR;
                    }
                    prediction[0] = prediction[1] = prediction[2] = 0;
                    to_go = job->restart_interval;
                }
                to_go--;
            }
            for (int i = 0; i < job->count; i++) {
                const wi_scaled_component *c = &job->component[i];
                for (int by = 0; by < c->v; by++) {
                    size_t row = ((size_t)my * (size_t)c->v + (size_t)by) * (size_t)c->scaled;
                    uint8_t *out = c->plane + row * c->stride + (size_t)mx * (size_t)c->h * (size_t)c->scaled;
                    for (int bx = 0; bx < c->h; bx++, out += c->scaled) {
                        if (!decode_block(&r, c, &prediction[i], out)) {
                            return WI_SCALED_IRREGULAR;
                        }
                    }
                }
            }
        }
        // Truncated data: stop now rather than decode the zeros to the end.
        if (r.padding > r.count || r.irregular) {
            return WI_SCALED_IRREGULAR;
        }
    }
    return WI_SCALED_OK;
}

void wi_scaled_job_free(wi_scaled_job *job) {
    for (int i = 0; i < 3; i++) {
        free(job->component[i].plane);
        job->component[i].plane = NULL;
    }
    for (int i = 0; i < 8; i++) {
        if (job->tables[i] != NULL) {
            free(job->tables[i]->skip);
            free(job->tables[i]->fast);
            free(job->tables[i]);
            job->tables[i] = NULL;
        }
    }
}
