// The reduced IDCTs of the scaled baseline decoder. To give libjpeg-turbo's planes byte
// for byte, this is the integer arithmetic of its C reduced IDCTs (jidctred.c, from the
// IJG's): 13-bit fixed-point constants, 2 extra bits between the passes, 64-bit
// intermediates, and its range-limit table indexed by the result masked to 10 bits (so a
// wildly out-of-range value wraps as libjpeg's does). libjpeg-turbo's SSE2 versions of
// the 2×2 and 4×4 agree with this for every in-range value; they saturate instead of
// wrapping only when hostile coefficients overflow 16 bits.
#include "wi_jpeg_scaled.h"

#include <string.h>

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
