// The SSE2 2×2 and 4×4 IDCTs (wi_jpeg_scaled_idct.c) against the same file's scalar code
// (built with WI_SCALED_NO_SIMD, its functions renamed ref_*), on random blocks: mostly
// photo-like magnitudes that the 32-bit paths take, one in eight hostile (any 16-bit
// coefficient or quantizer) for the 64-bit fallback. Exits 1 on any differing sample.
#include "wi_jpeg_scaled.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void ref_idct_2x2(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride);
void ref_idct_4x4(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride);
static unsigned long long s = 88172645463325252ull;
static unsigned long long rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
static int hostile;
static int16_t pick(int scale) {
    switch (rnd() % (hostile ? 4 : 3)) {
    case 0: return 0;
    case 1: return (int16_t)((int)(rnd() % (2 * scale + 1)) - scale);
    case 3: return (int16_t)rnd();
    default: return (int16_t)((int)(rnd() % 64) - 32);
    }
}
int main(void) {
    int16_t coef[80] __attribute__((aligned(16)));
    int16_t quant[65];
    long diffs = 0, n = 20000000;
    for (long i = 0; i < n; i++) {
        int scale = 1 << (rnd() % 9);
        hostile = rnd() % 8 == 0;
        for (int k = 0; k < 64; k++) coef[k] = pick(scale);
        for (int k = 0; k < 64; k++) quant[k + 1] = (hostile && rnd() % 8 == 0) ? (int16_t)rnd() : (int16_t)(1 + rnd() % (rnd() % 4 ? 16 : 255));
        uint8_t a[2][8], b[2][8];
        wi_scaled_idct_2x2(coef, quant + 1, &a[0][0], 8);
        ref_idct_2x2(coef, quant + 1, &b[0][0], 8);
        if (a[0][0] != b[0][0] || a[0][1] != b[0][1] || a[1][0] != b[1][0] || a[1][1] != b[1][1]) {
            if (diffs++ < 5) printf("2x2 differ at %ld\n", i);
        }
        uint8_t c4[4][8], d4[4][8];
        wi_scaled_idct_4x4(coef, quant + 1, &c4[0][0], 8);
        ref_idct_4x4(coef, quant + 1, &d4[0][0], 8);
        for (int r = 0; r < 4; r++)
            if (memcmp(c4[r], d4[r], 4) != 0) {
                if (diffs++ < 5) printf("4x4 differ at %ld row %d: %d %d %d %d vs %d %d %d %d\n", i, r, c4[r][0], c4[r][1], c4[r][2], c4[r][3], d4[r][0], d4[r][1], d4[r][2], d4[r][3]);
                break;
            }
    }
    printf("%ld blocks, %ld differ\n", n, diffs);
    return diffs != 0;
}
