// The reduced IDCTs of the scaled baseline decoder. To give libjpeg-turbo's planes byte
// for byte, this is the integer arithmetic of its C reduced IDCTs (jidctred.c, from the
// IJG's): 13-bit fixed-point constants, 2 extra bits between the passes, 64-bit
// intermediates, and its range-limit table indexed by the result masked to 10 bits (so a
// wildly out-of-range value wraps as libjpeg's does). libjpeg-turbo's SSE2 versions of
// the 2×2 and 4×4 agree with this for every in-range value; they saturate instead of
// wrapping only when hostile coefficients overflow 16 bits.
//
// Most blocks of a photo stay within 13 bits through both passes; for them the 32-bit
// code (exact there) runs, with SSE2 where the compiler targets it (every x86_64): the
// same sums, by pmaddwd; a 1/4 decode takes 15-17 % less CPU than with the scalar
// loops. Other blocks take the 64-bit code. Checked against the scalar code (WI_SCALED_NO_SIMD) on 20 million
// random blocks: make -C scripts/jpeg-scaled idct-check.
#include "wi_jpeg_scaled.h"

#include <string.h>

#if defined(__SSE2__) && !defined(WI_SCALED_NO_SIMD)
#include <emmintrin.h>
#endif

#define MASK 1023

// libjpeg's post-IDCT table (jdmaster.c, prepare_range_limit_table) as seen through the
// 10-bit mask: centred values 0…127 and (wrapped negatives) 896…1023 give samples,
// 128…511 saturate high, 512…895 saturate low.
static inline uint8_t range_limit(int value) {
    int m = value & MASK;
    return m < 128 ? (uint8_t)(m + 128) : m < 512 ? 255 : m < 896 ? 0 : (uint8_t)(m - 896);
}

static inline int64_t dequantize(const int16_t *coef, const int16_t *quant, int i) {
    return (int32_t)coef[i] * (int32_t)quant[i];
}

static inline uint8_t limit(int64_t value, int shift) {
    return range_limit((int)((value + ((int64_t)1 << (shift - 1))) >> shift));
}

void wi_scaled_idct_1x1(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    (void)stride;
    out[0] = limit((int32_t)dequantize(coef, quant, 0), 3);
}

void wi_scaled_idct_dc(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride, int n) {
    // Both IDCTs' zero-column shortcut (the DC scaled by 2 extra bits, in int) and then
    // their zero-row one, for every row.
    int dc = (int)(uint32_t)((uint64_t)dequantize(coef, quant, 0) << 2);
    uint8_t sample = limit(dc, 5);
    for (int r = 0; r < n; r++) {
        memset(out + (size_t)r * stride, sample, (size_t)n);
    }
}

static void idct_2x2_wide(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    int work[16];
    // Columns 0, 1, 3, 5, 7 (the even ones above 0 do not reach a 2-point output).
    for (int c = 0; c < 8; c++) {
        if (c == 2 || c == 4 || c == 6) {
            continue;
        }
        if (coef[8 + c] == 0 && coef[24 + c] == 0 && coef[40 + c] == 0 && coef[56 + c] == 0) {
            int dc = (int)(uint32_t)((uint64_t)dequantize(coef, quant, c) << 2);
            work[c] = work[8 + c] = dc;
            continue;
        }
        int64_t even = (int64_t)((uint64_t)dequantize(coef, quant, c) << 15);
        int64_t odd = dequantize(coef, quant, 56 + c) * -5906 + dequantize(coef, quant, 40 + c) * 6967 +
                      dequantize(coef, quant, 24 + c) * -10426 + dequantize(coef, quant, 8 + c) * 29692;
        work[c] = (int)((even + odd + 4096) >> 13);
        work[8 + c] = (int)((even - odd + 4096) >> 13);
    }
    for (int r = 0; r < 2; r++) {
        const int *w = work + 8 * r;
        uint8_t *row = out + (size_t)r * stride;
        if (w[1] == 0 && w[3] == 0 && w[5] == 0 && w[7] == 0) {
            row[0] = row[1] = limit(w[0], 5);
            continue;
        }
        int64_t even = (int64_t)((uint64_t)(int64_t)w[0] << 15);
        int64_t odd = (int64_t)w[7] * -5906 + (int64_t)w[5] * 6967 + (int64_t)w[3] * -10426 + (int64_t)w[1] * 29692;
        row[0] = limit(even + odd, 20);
        row[1] = limit(even - odd, 20);
    }
}

static void idct_4x4_wide(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    int work[32];
    // Every column but 4, which a 4-point output never reads.
    for (int c = 0; c < 8; c++) {
        if (c == 4) {
            continue;
        }
        if (coef[8 + c] == 0 && coef[16 + c] == 0 && coef[24 + c] == 0 && coef[40 + c] == 0 && coef[48 + c] == 0 &&
            coef[56 + c] == 0) {
            int dc = (int)(uint32_t)((uint64_t)dequantize(coef, quant, c) << 2);
            work[c] = work[8 + c] = work[16 + c] = work[24 + c] = dc;
            continue;
        }
        int64_t t0 = (int64_t)((uint64_t)dequantize(coef, quant, c) << 14);
        int64_t t2 = dequantize(coef, quant, 16 + c) * 15137 + dequantize(coef, quant, 48 + c) * -6270;
        int64_t t10 = t0 + t2, t12 = t0 - t2;
        int64_t z1 = dequantize(coef, quant, 56 + c), z2 = dequantize(coef, quant, 40 + c);
        int64_t z3 = dequantize(coef, quant, 24 + c), z4 = dequantize(coef, quant, 8 + c);
        t0 = z1 * -1730 + z2 * 11893 + z3 * -17799 + z4 * 8697;
        t2 = z1 * -4176 + z2 * -4926 + z3 * 7373 + z4 * 20995;
        work[c] = (int)((t10 + t2 + 2048) >> 12);
        work[24 + c] = (int)((t10 - t2 + 2048) >> 12);
        work[8 + c] = (int)((t12 + t0 + 2048) >> 12);
        work[16 + c] = (int)((t12 - t0 + 2048) >> 12);
    }
    for (int r = 0; r < 4; r++) {
        const int *w = work + 8 * r;
        uint8_t *row = out + (size_t)r * stride;
        if (w[1] == 0 && w[2] == 0 && w[3] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0) {
            row[0] = row[1] = row[2] = row[3] = limit(w[0], 5);
            continue;
        }
        int64_t t0 = (int64_t)((uint64_t)(int64_t)w[0] << 14);
        int64_t t2 = (int64_t)w[2] * 15137 + (int64_t)w[6] * -6270;
        int64_t t10 = t0 + t2, t12 = t0 - t2;
        int64_t z1 = w[7], z2 = w[5], z3 = w[3], z4 = w[1];
        t0 = z1 * -1730 + z2 * 11893 + z3 * -17799 + z4 * 8697;
        t2 = z1 * -4176 + z2 * -4926 + z3 * 7373 + z4 * 20995;
        row[0] = limit(t10 + t2, 19);
        row[3] = limit(t10 - t2, 19);
        row[1] = limit(t12 + t0, 19);
        row[2] = limit(t12 - t0, 19);
    }
}

// The same arithmetic in 32 bits, without the zero shortcuts (which give the full
// formulas' results), for blocks whose dequantized coefficients and first-pass results
// stay under 2^13 in magnitude: then no sum reaches 2^31, so every result is the 64-bit
// one. Branch-free loops over all 8 columns, which compilers vectorize; other blocks
// (hostile data, extreme contrast) take the 64-bit code above.
#define SMALL(v) ((uint32_t)((v) + 8192) >= 16384u)

#if defined(__SSE2__) && !defined(WI_SCALED_NO_SIMD)
/// Lanes of 16-bit `value` outside -8192…8191 (the 32-bit path's bound), as set bits.
static inline __m128i outside_13_bits(__m128i value) {
    return _mm_and_si128(_mm_add_epi16(value, _mm_set1_epi16(8192)), _mm_set1_epi16((int16_t)0xC000));
}

/// Row `r` of the block dequantized, when every product is within 13 bits; `*bad` gets
/// set bits otherwise.
static inline __m128i dequantize_row(const int16_t *coef, const int16_t *quant, int r, __m128i *bad) {
    __m128i c = _mm_load_si128((const __m128i *)(const void *)(coef + 8 * r));
    __m128i q = _mm_loadu_si128((const __m128i *)(const void *)(quant + 8 * r));
    __m128i low = _mm_mullo_epi16(c, q), high = _mm_mulhi_epi16(c, q);
    // The 32-bit product is `low` sign-extended only when `high` is `low`'s sign.
    *bad = _mm_or_si128(*bad, _mm_or_si128(outside_13_bits(low), _mm_xor_si128(high, _mm_srai_epi16(low, 15))));
    return low;
}

/// Two 16-bit constants as pmaddwd's pair: `a` times the even lane plus `b` times the odd.
#define PAIR(a, b) _mm_set1_epi32((int32_t)(((uint32_t)(uint16_t)(int16_t)(b) << 16) | (uint16_t)(int16_t)(a)))

/// The 32-bit arithmetic below with SSE2, for the same blocks (every dequantized
/// coefficient and first-pass result within 13 bits, so every 16-bit lane and pmaddwd sum
/// is exact): each multiply-add pair of the column pass is one pmaddwd over 4 columns, and
/// the row pass one over a row's 8 values. Other blocks take the 64-bit code.
void wi_scaled_idct_2x2(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    __m128i bad = _mm_setzero_si128(), zero = _mm_setzero_si128();
    __m128i d0 = dequantize_row(coef, quant, 0, &bad), d1 = dequantize_row(coef, quant, 1, &bad);
    __m128i d3 = dequantize_row(coef, quant, 3, &bad), d5 = dequantize_row(coef, quant, 5, &bad);
    __m128i d7 = dequantize_row(coef, quant, 7, &bad);
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(bad, zero)) != 0xFFFF) {
        idct_2x2_wide(coef, quant, out, stride);
        return;
    }
    // Columns 0-3 (low) and 4-7 (high): even = d0 << 15, odd = d7·-5906 + d5·6967 + d3·-10426 + d1·29692.
    const __m128i k75 = PAIR(-5906, 6967), k31 = PAIR(-10426, 29692), round = _mm_set1_epi32(4096);
    __m128i odd_low = _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(d7, d5), k75),
                                    _mm_madd_epi16(_mm_unpacklo_epi16(d3, d1), k31));
    __m128i odd_high = _mm_add_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(d7, d5), k75),
                                     _mm_madd_epi16(_mm_unpackhi_epi16(d3, d1), k31));
    __m128i even_low = _mm_add_epi32(_mm_srai_epi32(_mm_unpacklo_epi16(zero, d0), 1), round);
    __m128i even_high = _mm_add_epi32(_mm_srai_epi32(_mm_unpackhi_epi16(zero, d0), 1), round);
    __m128i w0 = _mm_packs_epi32(_mm_srai_epi32(_mm_add_epi32(even_low, odd_low), 13),
                                 _mm_srai_epi32(_mm_add_epi32(even_high, odd_high), 13));
    __m128i w1 = _mm_packs_epi32(_mm_srai_epi32(_mm_sub_epi32(even_low, odd_low), 13),
                                 _mm_srai_epi32(_mm_sub_epi32(even_high, odd_high), 13));
    // Saturated lanes are outside 13 bits too.
    bad = _mm_or_si128(outside_13_bits(w0), outside_13_bits(w1));
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(bad, zero)) != 0xFFFF) {
        idct_2x2_wide(coef, quant, out, stride);
        return;
    }
    // Each row's odd part: w1·29692 + w3·-10426 + w5·6967 + w7·-5906, summed across lanes.
    const __m128i k_row = _mm_set_epi16(-5906, 0, 6967, 0, -10426, 0, 29692, 0);
    __m128i t0 = _mm_madd_epi16(w0, k_row), t1 = _mm_madd_epi16(w1, k_row);
    t0 = _mm_add_epi32(t0, _mm_shuffle_epi32(t0, _MM_SHUFFLE(2, 3, 0, 1)));
    t1 = _mm_add_epi32(t1, _mm_shuffle_epi32(t1, _MM_SHUFFLE(2, 3, 0, 1)));
    __m128i odd = _mm_add_epi32(_mm_unpacklo_epi32(t0, t1), _mm_unpackhi_epi32(t0, t1));
    int32_t odd0 = _mm_cvtsi128_si32(odd), odd1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(odd, 1));
    int32_t even0 = (int32_t)(int16_t)_mm_extract_epi16(w0, 0) * 32768 + (1 << 19);
    int32_t even1 = (int32_t)(int16_t)_mm_extract_epi16(w1, 0) * 32768 + (1 << 19);
    out[0] = range_limit((even0 + odd0) >> 20);
    out[1] = range_limit((even0 - odd0) >> 20);
    out[stride] = range_limit((even1 + odd1) >> 20);
    out[stride + 1] = range_limit((even1 - odd1) >> 20);
}
#else
void wi_scaled_idct_2x2(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    int32_t d0[8], d1[8], d3[8], d5[8], d7[8], w0[8], w1[8];
    uint32_t large = 0;
    for (int c = 0; c < 8; c++) {
        d0[c] = coef[c] * quant[c];
        d1[c] = coef[8 + c] * quant[8 + c];
        d3[c] = coef[24 + c] * quant[24 + c];
        d5[c] = coef[40 + c] * quant[40 + c];
        d7[c] = coef[56 + c] * quant[56 + c];
        large |= SMALL(d0[c]) | SMALL(d1[c]) | SMALL(d3[c]) | SMALL(d5[c]) | SMALL(d7[c]);
    }
    if (large) {
        idct_2x2_wide(coef, quant, out, stride);
        return;
    }
    for (int c = 0; c < 8; c++) {
        int32_t even = d0[c] * 32768;
        int32_t odd = d7[c] * -5906 + d5[c] * 6967 + d3[c] * -10426 + d1[c] * 29692;
        w0[c] = (even + odd + 4096) >> 13;
        w1[c] = (even - odd + 4096) >> 13;
        large |= SMALL(w0[c]) | SMALL(w1[c]);
    }
    if (large) {
        idct_2x2_wide(coef, quant, out, stride);
        return;
    }
    const int32_t *rows[2] = {w0, w1};
    for (int r = 0; r < 2; r++) {
        const int32_t *w = rows[r];
        int32_t even = w[0] * 32768;
        int32_t odd = w[7] * -5906 + w[5] * 6967 + w[3] * -10426 + w[1] * 29692;
        out[(size_t)r * stride] = range_limit((even + odd + (1 << 19)) >> 20);
        out[(size_t)r * stride + 1] = range_limit((even - odd + (1 << 19)) >> 20);
    }
}
#endif

#if defined(__SSE2__) && !defined(WI_SCALED_NO_SIMD)
/// One row's four outputs of the 4×4 row pass, before the final shift: the row's 8 values
/// `w` (16 bits each) dotted with each term's constants by pmaddwd, summed across lanes
/// into t10, t12, t0 and t2, then [t10 + t2, t12 + t0, t12 - t0, t10 - t2] + rounding.
static inline __m128i row_4x4(__m128i w) {
    const __m128i k10 = _mm_set_epi16(0, -6270, 0, 0, 0, 15137, 0, 16384);
    const __m128i k12 = _mm_set_epi16(0, 6270, 0, 0, 0, -15137, 0, 16384);
    const __m128i k0 = _mm_set_epi16(-1730, 0, 11893, 0, -17799, 0, 8697, 0);
    const __m128i k2 = _mm_set_epi16(-4176, 0, -4926, 0, 7373, 0, 20995, 0);
    __m128i m10 = _mm_madd_epi16(w, k10), m12 = _mm_madd_epi16(w, k12);
    __m128i m0 = _mm_madd_epi16(w, k0), m2 = _mm_madd_epi16(w, k2);
    __m128i even = _mm_add_epi32(_mm_unpacklo_epi32(m10, m12), _mm_unpackhi_epi32(m10, m12));
    __m128i odd = _mm_add_epi32(_mm_unpacklo_epi32(m0, m2), _mm_unpackhi_epi32(m0, m2));
    __m128i sums = _mm_add_epi32(_mm_unpacklo_epi64(even, odd), _mm_unpackhi_epi64(even, odd)); // t10 t12 t0 t2
    __m128i a = _mm_shuffle_epi32(sums, _MM_SHUFFLE(0, 1, 1, 0));
    __m128i b = _mm_shuffle_epi32(sums, _MM_SHUFFLE(3, 2, 2, 3));
    const __m128i negate = _mm_set_epi32(-1, -1, 0, 0);
    b = _mm_sub_epi32(_mm_xor_si128(b, negate), negate);
    return _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(a, b), _mm_set1_epi32(1 << 18)), 19);
}

/// range_limit on 16-bit lanes: (v + 128) masked to 10 bits is the sample below 256, 255
/// from there to 639 (saturated high), 0 above (saturated low); packus makes the 255s.
static inline __m128i range_limit_16(__m128i v) {
    __m128i t = _mm_and_si128(_mm_add_epi16(v, _mm_set1_epi16(128)), _mm_set1_epi16(1023));
    return _mm_andnot_si128(_mm_cmpgt_epi16(t, _mm_set1_epi16(639)), t);
}

/// The 32-bit arithmetic below with SSE2, for the same blocks (as wi_scaled_idct_2x2):
/// the column pass's multiply-add pairs one pmaddwd per 4 columns, each row one set of
/// pmaddwd dot products.
void wi_scaled_idct_4x4(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    __m128i bad = _mm_setzero_si128(), zero = _mm_setzero_si128();
    __m128i d0 = dequantize_row(coef, quant, 0, &bad), d1 = dequantize_row(coef, quant, 1, &bad);
    __m128i d2 = dequantize_row(coef, quant, 2, &bad), d3 = dequantize_row(coef, quant, 3, &bad);
    __m128i d5 = dequantize_row(coef, quant, 5, &bad), d6 = dequantize_row(coef, quant, 6, &bad);
    __m128i d7 = dequantize_row(coef, quant, 7, &bad);
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(bad, zero)) != 0xFFFF) {
        idct_4x4_wide(coef, quant, out, stride);
        return;
    }
    const __m128i k26 = PAIR(15137, -6270), k75_0 = PAIR(-1730, 11893), k31_0 = PAIR(-17799, 8697);
    const __m128i k75_2 = PAIR(-4176, -4926), k31_2 = PAIR(7373, 20995), round = _mm_set1_epi32(2048);
    __m128i w[4][2];
    for (int half = 0; half < 2; half++) {
        __m128i p26 = half ? _mm_unpackhi_epi16(d2, d6) : _mm_unpacklo_epi16(d2, d6);
        __m128i p75 = half ? _mm_unpackhi_epi16(d7, d5) : _mm_unpacklo_epi16(d7, d5);
        __m128i p31 = half ? _mm_unpackhi_epi16(d3, d1) : _mm_unpacklo_epi16(d3, d1);
        __m128i e0 = _mm_srai_epi32(half ? _mm_unpackhi_epi16(zero, d0) : _mm_unpacklo_epi16(zero, d0), 2);
        __m128i t2 = _mm_madd_epi16(p26, k26);
        __m128i t10 = _mm_add_epi32(_mm_add_epi32(e0, t2), round), t12 = _mm_add_epi32(_mm_sub_epi32(e0, t2), round);
        __m128i t0 = _mm_add_epi32(_mm_madd_epi16(p75, k75_0), _mm_madd_epi16(p31, k31_0));
        __m128i t2o = _mm_add_epi32(_mm_madd_epi16(p75, k75_2), _mm_madd_epi16(p31, k31_2));
        w[0][half] = _mm_srai_epi32(_mm_add_epi32(t10, t2o), 12);
        w[3][half] = _mm_srai_epi32(_mm_sub_epi32(t10, t2o), 12);
        w[1][half] = _mm_srai_epi32(_mm_add_epi32(t12, t0), 12);
        w[2][half] = _mm_srai_epi32(_mm_sub_epi32(t12, t0), 12);
    }
    __m128i rows[4];
    for (int r = 0; r < 4; r++) {
        rows[r] = _mm_packs_epi32(w[r][0], w[r][1]); // saturated lanes fail the check below
        bad = _mm_or_si128(bad, outside_13_bits(rows[r]));
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi16(bad, zero)) != 0xFFFF) {
        idct_4x4_wide(coef, quant, out, stride);
        return;
    }
    __m128i top = range_limit_16(_mm_packs_epi32(row_4x4(rows[0]), row_4x4(rows[1])));
    __m128i bottom = range_limit_16(_mm_packs_epi32(row_4x4(rows[2]), row_4x4(rows[3])));
    __m128i bytes = _mm_packus_epi16(top, bottom);
    for (int r = 0; r < 4; r++) {
        uint32_t row = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(bytes, 0));
        memcpy(out + (size_t)r * stride, &row, 4);
        bytes = _mm_srli_si128(bytes, 4);
    }
}
#else
void wi_scaled_idct_4x4(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride) {
    int32_t d[8][8], w[4][8];
    uint32_t large = 0;
    for (int r = 0; r < 8; r++) {
        for (int c = 0; c < 8; c++) {
            d[r][c] = coef[8 * r + c] * quant[8 * r + c];
            large |= SMALL(d[r][c]);
        }
    }
    if (large) {
        idct_4x4_wide(coef, quant, out, stride);
        return;
    }
    for (int c = 0; c < 8; c++) {
        int32_t t0 = d[0][c] * 16384;
        int32_t t2 = d[2][c] * 15137 + d[6][c] * -6270;
        int32_t t10 = t0 + t2, t12 = t0 - t2;
        int32_t z1 = d[7][c], z2 = d[5][c], z3 = d[3][c], z4 = d[1][c];
        t0 = z1 * -1730 + z2 * 11893 + z3 * -17799 + z4 * 8697;
        t2 = z1 * -4176 + z2 * -4926 + z3 * 7373 + z4 * 20995;
        w[0][c] = (t10 + t2 + 2048) >> 12;
        w[3][c] = (t10 - t2 + 2048) >> 12;
        w[1][c] = (t12 + t0 + 2048) >> 12;
        w[2][c] = (t12 - t0 + 2048) >> 12;
        large |= SMALL(w[0][c]) | SMALL(w[1][c]) | SMALL(w[2][c]) | SMALL(w[3][c]);
    }
    if (large) {
        idct_4x4_wide(coef, quant, out, stride);
        return;
    }
    for (int r = 0; r < 4; r++) {
        const int32_t *v = w[r];
        int32_t t0 = v[0] * 16384;
        int32_t t2 = v[2] * 15137 + v[6] * -6270;
        int32_t t10 = t0 + t2, t12 = t0 - t2;
        int32_t z1 = v[7], z2 = v[5], z3 = v[3], z4 = v[1];
        t0 = z1 * -1730 + z2 * 11893 + z3 * -17799 + z4 * 8697;
        t2 = z1 * -4176 + z2 * -4926 + z3 * 7373 + z4 * 20995;
        uint8_t *row = out + (size_t)r * stride;
        row[0] = range_limit((t10 + t2 + (1 << 18)) >> 19);
        row[3] = range_limit((t10 - t2 + (1 << 18)) >> 19);
        row[1] = range_limit((t12 + t0 + (1 << 18)) >> 19);
        row[2] = range_limit((t12 - t0 + (1 << 18)) >> 19);
    }
}
#endif
