#include "CResample.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
// -DWI_RS_NO_AVX2 builds the SSE2 loops alone, to check them on a CPU that has AVX2.
#if defined(__x86_64__) && defined(__clang__) && !defined(WI_RS_NO_AVX2)
#include <immintrin.h>
#define WI_RS_AVX2 1
#endif

// 8-bit value v × alpha a as fixed point (×64) = v·a·64/255, rounded: v·a/255 ≈ (q + q/256) / 256,
// so ×64 is (q + (q >> 8) + 2) >> 2; exact (v × 64) when a = 255, and it never exceeds 16 bits.
static inline int16_t premultiplied(unsigned v, unsigned a) {
    unsigned q = v * a;
    return (int16_t)((q + (q >> 8) + 2) >> 2);
}

static inline int16_t clamp16(int32_t v) {
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

static inline uint8_t to_byte(int32_t v) {
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

void wi_rs_load_row(const uint8_t *src, size_t width, int premultiply, int16_t *out) {
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i zero = _mm_setzero_si128();
    // Lanes 3 and 7 (alpha) keep a × 64; the others take the premultiplied colour.
    const __m128i alpha_lanes = _mm_set_epi16(-1, 0, 0, 0, -1, 0, 0, 0);
    const __m128i two = _mm_set1_epi16(2);
    for (; i + 4 <= width; i += 4) {
        __m128i p = _mm_loadu_si128((const __m128i *)(src + 4 * i));
        __m128i halves[2] = {_mm_unpacklo_epi8(p, zero), _mm_unpackhi_epi8(p, zero)};
        for (int h = 0; h < 2; h++) {
            __m128i v = halves[h];
            __m128i r;
            if (premultiply) {
                __m128i a = _mm_shufflehi_epi16(_mm_shufflelo_epi16(v, 0xFF), 0xFF);
                __m128i q = _mm_mullo_epi16(v, a);
                __m128i c = _mm_srli_epi16(_mm_add_epi16(_mm_add_epi16(q, _mm_srli_epi16(q, 8)), two), 2);
                r = _mm_or_si128(_mm_andnot_si128(alpha_lanes, c), _mm_and_si128(alpha_lanes, _mm_slli_epi16(v, 6)));
            } else {
                r = _mm_slli_epi16(v, 6);
            }
            _mm_storeu_si128((__m128i *)(out + 4 * i + 8 * h), r);
        }
    }
#endif
    for (; i < width; i++) {
        const uint8_t *p = src + 4 * i;
        int16_t *o = out + 4 * i;
        if (premultiply) {
            o[0] = premultiplied(p[0], p[3]);
            o[1] = premultiplied(p[1], p[3]);
            o[2] = premultiplied(p[2], p[3]);
        } else {
            o[0] = (int16_t)(p[0] << 6);
            o[1] = (int16_t)(p[1] << 6);
            o[2] = (int16_t)(p[2] << 6);
        }
        o[3] = (int16_t)(p[3] << 6);
    }
}

void wi_rs_box_add_row(const uint8_t *src, size_t width, size_t k, int premultiply, int16_t *scratch,
                       int64_t *sums) {
    wi_rs_load_row(src, width, premultiply, scratch);
    for (size_t start = 0, g = 0; start < width; start += k, g++) {
        size_t end = start + k < width ? start + k : width;
        size_t x = start;
        // A group sum stays within 32 bits: k < 65536 pixels of at most 16320 each.
#if defined(__SSE2__)
        __m128i acc = _mm_setzero_si128();
        for (; x + 2 <= end; x += 2) {
            // Two pixels; sign-extend each half to 32 bits.
            __m128i p = _mm_loadu_si128((const __m128i *)(scratch + 4 * x));
            acc = _mm_add_epi32(acc, _mm_srai_epi32(_mm_unpacklo_epi16(p, p), 16));
            acc = _mm_add_epi32(acc, _mm_srai_epi32(_mm_unpackhi_epi16(p, p), 16));
        }
        for (; x < end; x++) {
            __m128i p = _mm_loadl_epi64((const __m128i *)(scratch + 4 * x));
            acc = _mm_add_epi32(acc, _mm_srai_epi32(_mm_unpacklo_epi16(p, p), 16));
        }
        int32_t lanes[4];
        _mm_storeu_si128((__m128i *)lanes, acc);
#else
        int32_t lanes[4] = {0, 0, 0, 0};
        for (; x < end; x++) {
            for (int c = 0; c < 4; c++) {
                lanes[c] += scratch[4 * x + c];
            }
        }
#endif
        for (int c = 0; c < 4; c++) {
            sums[4 * g + c] += lanes[c];
        }
    }
}

void wi_rs_box_emit(int64_t *sums, size_t groups, size_t k, size_t last_k, size_t rows, int16_t *out) {
    // Sums stay far below 2^53, so a double holds them exactly; the reciprocal saves a
    // division per value.
    double inverse = 1.0 / (double)(k * rows), last_inverse = 1.0 / (double)(last_k * rows);
    for (size_t g = 0; g < groups; g++) {
        double scale = g + 1 == groups ? last_inverse : inverse;
        for (int c = 0; c < 4; c++) {
            out[4 * g + c] = (int16_t)((double)sums[4 * g + c] * scale + 0.5);
            sums[4 * g + c] = 0;
        }
    }
}

static void vertical_generic(const int16_t *const *rows, const int16_t *weights, int count, size_t i, size_t n,
                             int16_t *out) {
#if defined(__SSE2__)
    for (; i + 8 <= n; i += 8) {
        __m128i lo = _mm_set1_epi32(1 << 13), hi = lo;
        int t = 0;
        for (; t + 1 < count; t += 2) {
            // Rows t and t+1 interleaved, so pmaddwd sums their two products per lane.
            __m128i w = _mm_set1_epi32((int32_t)((uint16_t)weights[t] | ((uint32_t)(uint16_t)weights[t + 1] << 16)));
            __m128i a = _mm_loadu_si128((const __m128i *)(rows[t] + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(rows[t + 1] + i));
            lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, b), w));
            hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, b), w));
        }
        if (t < count) {
            __m128i w = _mm_set1_epi32((uint16_t)weights[t]);
            __m128i a = _mm_loadu_si128((const __m128i *)(rows[t] + i));
            __m128i zero = _mm_setzero_si128();
            lo = _mm_add_epi32(lo, _mm_madd_epi16(_mm_unpacklo_epi16(a, zero), w));
            hi = _mm_add_epi32(hi, _mm_madd_epi16(_mm_unpackhi_epi16(a, zero), w));
        }
        _mm_storeu_si128((__m128i *)(out + i), _mm_packs_epi32(_mm_srai_epi32(lo, 14), _mm_srai_epi32(hi, 14)));
    }
#endif
    for (; i < n; i++) {
        int32_t acc = 1 << 13;
        for (int t = 0; t < count; t++) {
            acc += weights[t] * rows[t][i];
        }
        out[i] = clamp16(acc >> 14);
    }
}

/// wi_rs_vertical_bytes from value `i` on, in SSE2 or plain C: 8-bit rows widened on load.
/// Σ w·v rounded at bit 8 equals Σ w·(v × 64) rounded at bit 14, so the result is the
/// same as loading the rows to fixed point first.
static void vertical_bytes_generic(const uint8_t *const *rows, const int16_t *weights, int count, size_t i,
                                   size_t n, int16_t *out) {
#if defined(__SSE2__)
    // As in vertical_avx2: weight pairs packed once, an odd last tap paired with itself at 0.
    enum { most_pairs = 64 };
    int pairs = (count + 1) / 2;
    if (pairs <= most_pairs) {
        int32_t packed[most_pairs];
        const uint8_t *first[most_pairs], *second[most_pairs];
        for (int k = 0; k < pairs; k++) {
            int odd = 2 * k + 1 < count;
            packed[k] = (int32_t)((uint16_t)weights[2 * k] | (odd ? (uint32_t)(uint16_t)weights[2 * k + 1] << 16 : 0));
            first[k] = rows[2 * k];
            second[k] = odd ? rows[2 * k + 1] : rows[2 * k];
        }
        const __m128i zero = _mm_setzero_si128(), half = _mm_set1_epi32(1 << 7);
        for (; i + 16 <= n; i += 16) {
            __m128i a0 = half, a1 = half, a2 = half, a3 = half;
            for (int k = 0; k < pairs; k++) {
                __m128i w = _mm_set1_epi32(packed[k]);
                __m128i x = _mm_loadu_si128((const __m128i *)(first[k] + i));
                __m128i y = _mm_loadu_si128((const __m128i *)(second[k] + i));
                // Bytes of the two rows interleaved, then widened: (x, y) word pairs.
                __m128i lo = _mm_unpacklo_epi8(x, y), hi = _mm_unpackhi_epi8(x, y);
                a0 = _mm_add_epi32(a0, _mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), w));
                a1 = _mm_add_epi32(a1, _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), w));
                a2 = _mm_add_epi32(a2, _mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), w));
                a3 = _mm_add_epi32(a3, _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), w));
            }
            _mm_storeu_si128((__m128i *)(out + i), _mm_packs_epi32(_mm_srai_epi32(a0, 8), _mm_srai_epi32(a1, 8)));
            _mm_storeu_si128((__m128i *)(out + i + 8), _mm_packs_epi32(_mm_srai_epi32(a2, 8), _mm_srai_epi32(a3, 8)));
        }
    }
#endif
    for (; i < n; i++) {
        int32_t acc = 1 << 7;
        for (int t = 0; t < count; t++) {
            acc += weights[t] * rows[t][i];
        }
        out[i] = clamp16(acc >> 8);
    }
}

static void horizontal_generic(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                               size_t width, int16_t *out) {
    for (size_t x = 0; x < width; x++) {
        const int16_t *p = src + 4 * (size_t)starts[x];
        const int16_t *w = weights + x * (size_t)count;
        int t = 0;
#if defined(__SSE2__)
        __m128i acc = _mm_set1_epi32(1 << 13);
        for (; t + 1 < count; t += 2) {
            // Pixels t and t+1 (RGBA RGBA) interleaved per channel: R R G G B B A A.
            __m128i px = _mm_loadu_si128((const __m128i *)(p + 4 * t));
            __m128i pairs = _mm_unpacklo_epi16(px, _mm_srli_si128(px, 8));
            __m128i ww = _mm_set1_epi32((int32_t)((uint16_t)w[t] | ((uint32_t)(uint16_t)w[t + 1] << 16)));
            acc = _mm_add_epi32(acc, _mm_madd_epi16(pairs, ww));
        }
        if (t < count) {
            __m128i px = _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(p + 4 * t)), _mm_setzero_si128());
            acc = _mm_add_epi32(acc, _mm_madd_epi16(px, _mm_set1_epi32((uint16_t)w[t])));
        }
        acc = _mm_srai_epi32(acc, 14);
        _mm_storel_epi64((__m128i *)(out + 4 * x), _mm_packs_epi32(acc, acc));
#else
        int32_t acc[4] = {1 << 13, 1 << 13, 1 << 13, 1 << 13};
        for (; t < count; t++) {
            for (int c = 0; c < 4; c++) {
                acc[c] += w[t] * p[4 * t + c];
            }
        }
        for (int c = 0; c < 4; c++) {
            out[4 * x + c] = clamp16(acc[c] >> 14);
        }
#endif
    }
}

#if WI_RS_AVX2
// The same sums with 256-bit registers; chosen at run time, so the binary still runs on
// CPUs without AVX2.

/// 32 (then 16) values at a time, two rows per pmaddwd. The weight pairs are packed once
/// per output row, not once per block; an odd last tap pairs its row with itself at
/// weight 0, so the inner loop has no tail.
__attribute__((target("avx2"))) static size_t vertical_avx2(const int16_t *const *rows, const int16_t *weights,
                                                             int count, size_t n, int16_t *out) {
    enum { most_pairs = 64 };
    int pairs = (count + 1) / 2;
    if (pairs > most_pairs) {
        return 0;
    }
    int32_t packed[most_pairs];
    const int16_t *first[most_pairs], *second[most_pairs];
    for (int k = 0; k < pairs; k++) {
        int odd = 2 * k + 1 < count;
        packed[k] = (int32_t)((uint16_t)weights[2 * k] | (odd ? (uint32_t)(uint16_t)weights[2 * k + 1] << 16 : 0));
        first[k] = rows[2 * k];
        second[k] = odd ? rows[2 * k + 1] : rows[2 * k];
    }
    const __m256i half = _mm256_set1_epi32(1 << 13);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = half, a1 = half, a2 = half, a3 = half;
        for (int k = 0; k < pairs; k++) {
            __m256i w = _mm256_set1_epi32(packed[k]);
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(first[k] + i));
            __m256i y0 = _mm256_loadu_si256((const __m256i *)(second[k] + i));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(first[k] + i + 16));
            __m256i y1 = _mm256_loadu_si256((const __m256i *)(second[k] + i + 16));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, y0), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, y0), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi16(x1, y1), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi16(x1, y1), w));
        }
        // Unpack and pack both work within 128-bit lanes, so the order comes back as it was.
        _mm256_storeu_si256((__m256i *)(out + i),
                            _mm256_packs_epi32(_mm256_srai_epi32(a0, 14), _mm256_srai_epi32(a1, 14)));
        _mm256_storeu_si256((__m256i *)(out + i + 16),
                            _mm256_packs_epi32(_mm256_srai_epi32(a2, 14), _mm256_srai_epi32(a3, 14)));
    }
    for (; i + 16 <= n; i += 16) {
        __m256i a0 = half, a1 = half;
        for (int k = 0; k < pairs; k++) {
            __m256i w = _mm256_set1_epi32(packed[k]);
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(first[k] + i));
            __m256i y0 = _mm256_loadu_si256((const __m256i *)(second[k] + i));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, y0), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, y0), w));
        }
        _mm256_storeu_si256((__m256i *)(out + i),
                            _mm256_packs_epi32(_mm256_srai_epi32(a0, 14), _mm256_srai_epi32(a1, 14)));
    }
    return i;
}

/// vertical_avx2 on 8-bit rows: vpmovzxbw widens 16 values as it loads them, so an opaque
/// image's rows need no fixed-point copy of their own and the ring holds half the bytes.
__attribute__((target("avx2"))) static size_t vertical_bytes_avx2(const uint8_t *const *rows,
                                                                   const int16_t *weights, int count, size_t n,
                                                                   int16_t *out) {
    enum { most_pairs = 64 };
    int pairs = (count + 1) / 2;
    if (pairs > most_pairs) {
        return 0;
    }
    int32_t packed[most_pairs];
    const uint8_t *first[most_pairs], *second[most_pairs];
    for (int k = 0; k < pairs; k++) {
        int odd = 2 * k + 1 < count;
        packed[k] = (int32_t)((uint16_t)weights[2 * k] | (odd ? (uint32_t)(uint16_t)weights[2 * k + 1] << 16 : 0));
        first[k] = rows[2 * k];
        second[k] = odd ? rows[2 * k + 1] : rows[2 * k];
    }
    const __m256i half = _mm256_set1_epi32(1 << 7);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a0 = half, a1 = half, a2 = half, a3 = half;
        for (int k = 0; k < pairs; k++) {
            __m256i w = _mm256_set1_epi32(packed[k]);
            __m256i x0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(first[k] + i)));
            __m256i y0 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(second[k] + i)));
            __m256i x1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(first[k] + i + 16)));
            __m256i y1 = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(second[k] + i + 16)));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, y0), w));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, y0), w));
            a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(_mm256_unpacklo_epi16(x1, y1), w));
            a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(_mm256_unpackhi_epi16(x1, y1), w));
        }
        _mm256_storeu_si256((__m256i *)(out + i),
                            _mm256_packs_epi32(_mm256_srai_epi32(a0, 8), _mm256_srai_epi32(a1, 8)));
        _mm256_storeu_si256((__m256i *)(out + i + 16),
                            _mm256_packs_epi32(_mm256_srai_epi32(a2, 8), _mm256_srai_epi32(a3, 8)));
    }
    return i;
}

/// Two output pixels at a time, four taps per pmaddwd: a byte shuffle puts each lane's two
/// source pixels channel by channel (R R G G B B A A), and an 8-byte broadcast plus a shuffle
/// gives the matching weight pairs (building them from scalars cost as many instructions as
/// the arithmetic: callgrind). `count` is a multiple of 4 (the caller pads with zero weights).
__attribute__((target("avx2"))) static void horizontal_avx2(const int16_t *src, const int32_t *starts,
                                                             const int16_t *weights, int count, size_t width,
                                                             int16_t *out, uint8_t *bytes) {
    const __m256i by_channel = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                                0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m256i weight_pairs = _mm256_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3,
                                                  4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7);
    const __m256i half = _mm256_set1_epi32(1 << 13);
    size_t x = 0;
    for (; x < width; x += 2) {
        // An odd last pixel is computed twice and stored once.
        size_t x1 = x + 1 < width ? x + 1 : x;
        const int16_t *p0 = src + 4 * (size_t)starts[x], *p1 = src + 4 * (size_t)starts[x1];
        const int16_t *w0 = weights + x * (size_t)count, *w1 = weights + x1 * (size_t)count;
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
        for (int t = 0; t < count; t += 4) {
            int64_t four0, four1;
            memcpy(&four0, w0 + t, sizeof four0);
            memcpy(&four1, w1 + t, sizeof four1);
            __m256i px0 = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(p0 + 4 * t)), by_channel);
            __m256i px1 = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(p1 + 4 * t)), by_channel);
            __m256i w0 = _mm256_shuffle_epi8(_mm256_set1_epi64x(four0), weight_pairs);
            acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(px0, w0));
            __m256i w1 = _mm256_shuffle_epi8(_mm256_set1_epi64x(four1), weight_pairs);
            acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(px1, w1));
        }
        // Lane 0: pixel x's two halves summed; lane 1: pixel x1's.
        __m256i sum = _mm256_add_epi32(_mm256_permute2x128_si256(acc0, acc1, 0x20),
                                       _mm256_permute2x128_si256(acc0, acc1, 0x31));
        sum = _mm256_srai_epi32(_mm256_add_epi32(sum, half), 14);
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(sum, sum), 0x08);
        __m128i two = _mm256_castsi256_si128(packed);
        if (bytes) {
            // wi_rs_store_row's rounding, on the two pixels still in a register.
            two = _mm_srai_epi16(_mm_adds_epi16(two, _mm_set1_epi16(32)), 6);
            two = _mm_packus_epi16(two, two);
            if (x1 != x) {
                _mm_storel_epi64((__m128i *)(bytes + 4 * x), two);
            } else {
                *(int32_t *)(void *)(bytes + 4 * x) = _mm_cvtsi128_si32(two);
            }
        } else if (x1 != x) {
            _mm_storeu_si128((__m128i *)(out + 4 * x), two);
        } else {
            _mm_storel_epi64((__m128i *)(out + 4 * x), two);
        }
    }
}

/// wi_rs_store_row's premultiplied case, two pixels at a time and without branches:
/// colour = max(c, 0) × 255 + alpha / 2 over alpha (both × 64), all three channels in one
/// float division. The numerator is below 2^23 (exact in a float) and divps rounds
/// correctly, so the quotient is within 2^-16 of the true one, while a true quotient that
/// is not whole is at least 1/alpha ≥ 2^-14 away from the next integer: adding 2^-15 and
/// truncating gives exactly the integer division the scalar loop does. An alpha under
/// 32 (0 after rounding) gives transparent black, as there.
__attribute__((target("avx2"))) static size_t store_premultiplied_avx2(const int16_t *src, size_t width,
                                                                        uint8_t *out) {
    const __m256i zero = _mm256_setzero_si256(), most = _mm256_set1_epi32(255 * 64);
    const __m256i alpha_lane = _mm256_setr_epi32(0, 0, 0, -1, 0, 0, 0, -1);
    const __m256i faint = _mm256_set1_epi32(32), half64 = _mm256_set1_epi32(32), scale = _mm256_set1_epi32(255);
    const __m256 nudge = _mm256_set1_ps(0x1p-15f);
    const __m256i gather = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
    size_t x = 0;
    for (; x + 2 <= width; x += 2) {
        __m256i v = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(src + 4 * x)));
        __m256i a = _mm256_min_epi32(_mm256_max_epi32(_mm256_shuffle_epi32(v, 0xFF), zero), most);
        __m256i n = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_max_epi32(v, zero), scale), _mm256_srli_epi32(a, 1));
        __m256 q = _mm256_add_ps(_mm256_div_ps(_mm256_cvtepi32_ps(n), _mm256_cvtepi32_ps(a)), nudge);
        __m256i colour = _mm256_andnot_si256(_mm256_cmpgt_epi32(faint, a) /* a < 32 */, _mm256_cvttps_epi32(q));
        __m256i alpha = _mm256_srli_epi32(_mm256_add_epi32(a, half64), 6);
        __m256i px = _mm256_blendv_epi8(colour, alpha, alpha_lane);
        __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(px, px), zero);
        _mm_storel_epi64((__m128i *)(out + 4 * x),
                         _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(bytes, gather)));
    }
    return x;
}

// Reads the CPU model the runtime filled in at startup: cheap, and no state of our own.
static int has_avx2(void) {
    return __builtin_cpu_supports("avx2");
}
#endif

void wi_rs_vertical(const int16_t *const *rows, const int16_t *weights, int count, size_t n, int16_t *out) {
    size_t i = 0;
#if WI_RS_AVX2
    if (has_avx2()) {
        i = vertical_avx2(rows, weights, count, n, out);
    }
#endif
    vertical_generic(rows, weights, count, i, n, out);
}

void wi_rs_vertical_bytes(const uint8_t *const *rows, const int16_t *weights, int count, size_t n, int16_t *out) {
    size_t i = 0;
#if WI_RS_AVX2
    if (has_avx2()) {
        i = vertical_bytes_avx2(rows, weights, count, n, out);
    }
#endif
    vertical_bytes_generic(rows, weights, count, i, n, out);
}

void wi_rs_horizontal(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                      size_t width, int16_t *out) {
#if WI_RS_AVX2
    if (count % 4 == 0 && has_avx2()) {
        horizontal_avx2(src, starts, weights, count, width, out, NULL);
        return;
    }
#endif
    horizontal_generic(src, starts, weights, count, width, out);
}

void wi_rs_horizontal_store(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                            size_t width, int16_t *scratch, uint8_t *out) {
#if WI_RS_AVX2
    if (count % 4 == 0 && has_avx2()) {
        horizontal_avx2(src, starts, weights, count, width, scratch, out);
        return;
    }
#endif
    horizontal_generic(src, starts, weights, count, width, scratch);
    wi_rs_store_row(scratch, width, 0, out);
}

void wi_rs_horizontal_plane_store(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                                  size_t width, uint8_t *out) {
    for (size_t x = 0; x < width; x++) {
        const int16_t *p = src + (size_t)starts[x];
        const int16_t *w = weights + x * (size_t)count;
        int32_t sum;
        int t = 0;
#if defined(__SSE2__)
        // Neighbouring taps are neighbouring values here: pmaddwd sums them pairwise.
        __m128i acc = _mm_setzero_si128();
        for (; t + 8 <= count; t += 8) {
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_loadu_si128((const __m128i *)(p + t)),
                                                    _mm_loadu_si128((const __m128i *)(w + t))));
        }
        if (t < count) { // count is a multiple of 4: one group of four left
            acc = _mm_add_epi32(acc, _mm_madd_epi16(_mm_loadl_epi64((const __m128i *)(p + t)),
                                                    _mm_loadl_epi64((const __m128i *)(w + t))));
        }
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0x4E));
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0xB1));
        sum = _mm_cvtsi128_si32(acc);
#else
        sum = 0;
        for (; t < count; t++) {
            sum += w[t] * p[t];
        }
#endif
        // The 4-channel path's two roundings: to fixed point at bit 14, then to a byte.
        out[x] = to_byte((clamp16((sum + (1 << 13)) >> 14) + 32) >> 6);
    }
}

int wi_rs_is_opaque(const uint8_t *rgba, size_t pixels) {
    size_t i = 0;
#if defined(__SSE2__)
    // Colour bytes forced to 0xFF, so a block is all ones exactly when its alphas are 255;
    // 64 pixels per check keeps the early exit cheap.
    const __m128i colour = _mm_set1_epi32(0x00FFFFFF), ones = _mm_set1_epi32(-1);
    for (; i + 64 <= pixels; i += 64) {
        __m128i all = ones;
        for (size_t k = 0; k < 64; k += 4) {
            all = _mm_and_si128(all, _mm_or_si128(_mm_loadu_si128((const __m128i *)(rgba + 4 * (i + k))), colour));
        }
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(all, ones)) != 0xFFFF) {
            return 0;
        }
    }
#endif
    for (; i < pixels; i++) {
        if (rgba[4 * i + 3] != 255) {
            return 0;
        }
    }
    return 1;
}

void wi_rs_store_row(const int16_t *src, size_t width, int premultiplied, uint8_t *out) {
    size_t i = 0;
    if (!premultiplied) {
#if defined(__SSE2__)
        const __m128i half = _mm_set1_epi16(32);
        for (; i + 4 <= width; i += 4) {
            __m128i a = _mm_srai_epi16(_mm_adds_epi16(_mm_loadu_si128((const __m128i *)(src + 4 * i)), half), 6);
            __m128i b = _mm_srai_epi16(_mm_adds_epi16(_mm_loadu_si128((const __m128i *)(src + 4 * i + 8)), half), 6);
            _mm_storeu_si128((__m128i *)(out + 4 * i), _mm_packus_epi16(a, b));
        }
#endif
        for (; i < 4 * width; i++) {
            out[i] = to_byte((src[i] + 32) >> 6);
        }
        return;
    }
#if WI_RS_AVX2
    if (has_avx2()) {
        i = store_premultiplied_avx2(src, width, out);
    }
#endif
    for (; i < width; i++) {
        const int16_t *p = src + 4 * i;
        uint8_t *o = out + 4 * i;
        int32_t a = p[3] < 0 ? 0 : p[3] > 255 * 64 ? 255 * 64 : p[3];
        if (a < 32) {
            o[0] = o[1] = o[2] = o[3] = 0;
        } else if (a == 255 * 64) {
            o[0] = to_byte((p[0] + 32) >> 6);
            o[1] = to_byte((p[1] + 32) >> 6);
            o[2] = to_byte((p[2] + 32) >> 6);
            o[3] = 255;
        } else {
            // colour = premultiplied × 255 / alpha, rounded; both are × 64, which cancels.
            for (int c = 0; c < 3; c++) {
                int32_t v = p[c] < 0 ? 0 : p[c];
                o[c] = to_byte((v * 255 + a / 2) / a);
            }
            o[3] = (uint8_t)((a + 32) >> 6);
        }
    }
}
