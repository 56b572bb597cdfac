// The inner loops of WebImage's Lanczos resampler (Resampler.swift plans the work).
//
// They run on "fixed-point rows": 4 channels per pixel (R, G, B, A), each an int16 equal to
// the 8-bit value × 64, colour premultiplied by alpha when asked. Weights are Q14 (16384 = 1)
// and each set sums to exactly 16384, so a flat area stays flat. Every stage rounds to
// nearest. The loops use SSE2 (pmaddwd: two products summed per 32-bit lane) on x86-64,
// AVX2 where the CPU has it (chosen at run time), and plain C elsewhere; all give the same
// results. Swift's SIMD types cannot reach
// pmaddwd, and the integer multiplies they produce are 3–4× slower (measured).
#ifndef CRESAMPLE_H
#define CRESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/// Converts `width` RGBA pixels to a fixed-point row, premultiplying when `premultiply` is 1
/// (colour × alpha / 255, alpha kept); exact for opaque pixels.
void wi_rs_load_row(const uint8_t *src, size_t width, int premultiply, int16_t *out);

/// Adds one RGBA row to `sums` (4 × ceil(width / k) values): each group of `k` pixels
/// (the last may be shorter) summed in fixed point, premultiplied when asked. `scratch`
/// holds 4 × width values.
void wi_rs_box_add_row(const uint8_t *src, size_t width, size_t k, int premultiply, int16_t *scratch,
                       int64_t *sums);

/// Writes the mean of each group (`groups` of them; `k` pixels each except `last_k` for the
/// last one, over `rows` rows) as a fixed-point row, and zeroes `sums` for the next rows.
void wi_rs_box_emit(int64_t *sums, size_t groups, size_t k, size_t last_k, size_t rows, int16_t *out);

/// out[i] = Σ_t weights[t] × rows[t][i] for i < n (n int16 values: 4 per pixel).
void wi_rs_vertical(const int16_t *const *rows, const int16_t *weights, int count, size_t n, int16_t *out);

/// wi_rs_vertical on 8-bit rows (an opaque image's, as they were decoded): the same
/// result as converting them with wi_rs_load_row (no premultiplying) first.
void wi_rs_vertical_bytes(const uint8_t *const *rows, const int16_t *weights, int count, size_t n, int16_t *out);

/// For each of `width` output pixels x: Σ_t weights[x·count + t] × pixel[starts[x] + t].
/// AVX2 takes four taps at a time when `count` is a multiple of 4 (pad with zero weights;
/// the row must then hold `count` pixels from every start).
void wi_rs_horizontal(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                      size_t width, int16_t *out);

/// wi_rs_horizontal then wi_rs_store_row (not premultiplied) in one pass, the same bytes:
/// the AVX2 loop rounds each pair of pixels while they are in registers. `scratch` holds
/// 4 × width values (the other loops use it).
void wi_rs_horizontal_store(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                            size_t width, int16_t *scratch, uint8_t *out);

/// One-channel wi_rs_horizontal_store, for the planes of a YCbCr image: `src` holds one
/// fixed-point value per pixel, `count` is a multiple of 4 (zero-padded weights; the row
/// must hold `count` values from every start), and the result is rounded to bytes exactly
/// as wi_rs_store_row rounds.
void wi_rs_horizontal_plane_store(const int16_t *src, const int32_t *starts, const int16_t *weights, int count,
                                  size_t width, uint8_t *out);

/// Rounds a fixed-point row back to 8-bit RGBA, dividing colour by alpha when `premultiplied`
/// (a pixel whose alpha rounds to 0 becomes transparent black).
void wi_rs_store_row(const int16_t *src, size_t width, int premultiplied, uint8_t *out);

/// 1 when every alpha byte of `pixels` RGBA pixels is 255, else 0 (SSE2: ~16 pixels a step).
int wi_rs_is_opaque(const uint8_t *rgba, size_t pixels);

#endif
