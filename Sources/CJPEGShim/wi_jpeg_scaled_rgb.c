// RGBA rows from the scaled decoder's planes (wi_jpeg_scaled.c): the rows libjpeg-turbo's
// jpeg_read_scanlines gives at the same scale_denom with JCS_EXT_RGBA output, byte for byte.
//
// Why this is small: at 1/4 and 1/8 libjpeg-turbo's jpeg_calc_output_dimensions decodes
// 4:2:0 chroma with an IDCT twice luma's (DCT_scaled_size 2 or 4 against 1 or 2), so its
// chroma planes are already luma's size and its upsampler copies them (fullsize_upsample);
// 4:4:4 too. What is left is jdcolor.c's fixed-point YCbCr -> RGB (16-bit fractions,
// rounded as its tables are), reproduced below. 4:2:2 and 4:4:0 keep chroma at half size
// along one axis (the doubling stops at the axis that is not subsampled), so jdsample.c
// upsamples them: at 1/8 (min_DCT_scaled_size 1, where libjpeg-turbo turns fancy
// upsampling off) by replication, at 1/4 with its triangle filter (h2v1_fancy_upsample; for
// 4:4:0 h1v2_fancy_upsample, whose rows above the first and below the last repeat the edge
// row, as jdmainct.c's context pointers make them). Grey becomes R = G = B = Y.
// libjpeg-turbo's SIMD and C paths give the same rows for all of these (checked with
// JSIMD_FORCENONE, scripts/jpeg-scaled rgb-diff). Anything else (other colour spaces,
// 2×2 chroma upsampling, colour quantization) is declined from the header, before a pixel
// is written, and libjpeg-turbo decodes the file.
#include "wi_jpeg_scaled.h"

#include <stdlib.h>
#include <string.h>

#include <stdio.h> // jpeglib.h needs FILE
#include <jpeglib.h>

#define SCALEBITS 16
#define ONE_HALF ((int32_t)1 << (SCALEBITS - 1))
#define FIX(x) ((int32_t)((x) * (1L << SCALEBITS) + 0.5))

/// Scratch per chroma plane: a row upsampled across (2 × chroma_width) and one down (chroma_width).
static size_t scratch_part(const wi_scaled_rgb *rgb) {
    return 3 * (size_t)rgb->chroma_width + 8;
}

/// Whether component `i`'s plane, as wi_scaled_decode will allocate it, holds `width` ×
/// `height` samples.
static int covers(const wi_scaled_job *job, int i, size_t width, size_t height) {
    const wi_scaled_component *p = &job->component[i];
    return (size_t)job->mcus_per_row * (size_t)p->h * (size_t)p->scaled >= width &&
           (size_t)job->mcu_rows * (size_t)p->v * (size_t)p->scaled >= height;
}

int wi_scaled_rgb_setup(wi_scaled_rgb *rgb, const struct jpeg_decompress_struct *c, const wi_scaled_job *job) {
    memset(rgb, 0, sizeof *rgb);
    if (c->out_color_space != JCS_EXT_RGBA || c->raw_data_out || c->quantize_colors || c->CCIR601_sampling ||
        c->scale_num != 1 || (c->scale_denom != 4 && c->scale_denom != 8) || c->output_width == 0 ||
        c->output_height == 0 || job->count != c->num_components) {
        return 0;
    }
    rgb->width = c->output_width;
    rgb->height = c->output_height;
    if (c->num_components == 1) {
        rgb->gray = 1;
        return c->jpeg_color_space == JCS_GRAYSCALE && covers(job, 0, rgb->width, rgb->height);
    }
    const jpeg_component_info *luma = &c->comp_info[0], *cb = &c->comp_info[1], *cr = &c->comp_info[2];
    int min = c->min_DCT_scaled_size;
    if (c->num_components != 3 || c->jpeg_color_space != JCS_YCbCr || min < 1 ||
        luma->h_samp_factor != c->max_h_samp_factor || luma->v_samp_factor != c->max_v_samp_factor ||
        luma->DCT_scaled_size != min || cb->h_samp_factor != cr->h_samp_factor ||
        cb->v_samp_factor != cr->v_samp_factor || cb->DCT_scaled_size != cr->DCT_scaled_size ||
        cb->downsampled_width != cr->downsampled_width || cb->downsampled_height != cr->downsampled_height) {
        return 0;
    }
    // jinit_upsampler's "input group": chroma samples per max_samp_factor output pixels.
    int h_in = cb->h_samp_factor * cb->DCT_scaled_size / min, v_in = cb->v_samp_factor * cb->DCT_scaled_size / min;
    rgb->h_up = c->max_h_samp_factor == h_in ? 1 : c->max_h_samp_factor == 2 * h_in ? 2 : 0;
    rgb->v_up = c->max_v_samp_factor == v_in ? 1 : c->max_v_samp_factor == 2 * v_in ? 2 : 0;
    if (rgb->h_up == 0 || rgb->v_up == 0 || (rgb->h_up == 2 && rgb->v_up == 2)) {
        return 0; // h2v2 upsampling: no sampling the scaled decoder takes needs it at 1/4 or 1/8
    }
    int fancy = c->do_fancy_upsampling && min > 1; // jdsample.c: never at 1/8
    rgb->fancy = rgb->h_up == 2 ? fancy && cb->downsampled_width > 2 : rgb->v_up == 2 && fancy;
    rgb->chroma_width = cb->downsampled_width;
    rgb->chroma_height = cb->downsampled_height;
    size_t need_width = rgb->h_up == 2 ? (rgb->width + 1) / 2 : rgb->width;
    size_t need_height = rgb->v_up == 2 ? (rgb->height + 1) / 2 : rgb->height;
    if (rgb->chroma_width < need_width || rgb->chroma_height < need_height ||
        !covers(job, 0, rgb->width, rgb->height) ||
        !covers(job, 1, rgb->chroma_width, rgb->chroma_height) ||
        !covers(job, 2, rgb->chroma_width, rgb->chroma_height)) {
        return 0;
    }
    if (rgb->h_up == 2 || rgb->v_up == 2) {
        rgb->scratch = malloc(2 * scratch_part(rgb));
        if (rgb->scratch == NULL) {
            return 0;
        }
    }
    return 1;
}

void wi_scaled_rgb_free(wi_scaled_rgb *rgb) {
    free(rgb->scratch);
    rgb->scratch = NULL;
}

/// Chroma plane `p`'s samples for output row `row`, upsampled as libjpeg-turbo does;
/// `across` and `down` are scratch rows of 2 × chroma_width and chroma_width samples.
static const uint8_t *chroma_row(const wi_scaled_rgb *rgb, const wi_scaled_component *p, unsigned row,
                                 uint8_t *across, uint8_t *down) {
    unsigned n = rgb->chroma_width;
    const uint8_t *source = p->plane + (size_t)(rgb->v_up == 2 ? row / 2 : row) * p->stride;
    if (rgb->v_up == 2 && rgb->fancy) {
        // h1v2_fancy_upsample: 3/4 the nearer row, 1/4 the one above (even rows, rounding
        // with 1) or below (odd rows, with 2); past the edges, the edge row itself.
        unsigned in = row / 2, other;
        int bias;
        if (row % 2 == 0) {
            other = in > 0 ? in - 1 : 0;
            bias = 1;
        } else {
            other = in + 1 < rgb->chroma_height ? in + 1 : rgb->chroma_height - 1;
            bias = 2;
        }
        const uint8_t *far = p->plane + (size_t)other * p->stride;
        for (unsigned x = 0; x < n; x++) {
            down[x] = (uint8_t)((source[x] * 3 + far[x] + bias) >> 2);
        }
        source = down;
    }
    if (rgb->h_up == 1) {
        return source;
    }
    if (!rgb->fancy) {
        for (unsigned x = 0; x < rgb->width; x++) {
            across[x] = source[x / 2]; // h2v1_upsample
        }
        return across;
    }
    // h2v1_fancy_upsample (n > 2): 3/4 the nearer sample, 1/4 the next one out, the first
    // and last samples copied at the edges.
    across[0] = source[0];
    across[1] = (uint8_t)((source[0] * 3 + source[1] + 2) >> 2);
    for (unsigned j = 1; j + 1 < n; j++) {
        int near = source[j] * 3;
        across[2 * j] = (uint8_t)((near + source[j - 1] + 1) >> 2);
        across[2 * j + 1] = (uint8_t)((near + source[j + 1] + 2) >> 2);
    }
    across[2 * n - 2] = (uint8_t)((source[n - 1] * 3 + source[n - 2] + 1) >> 2);
    across[2 * n - 1] = source[n - 1];
    return across;
}

static inline uint8_t clamp(int32_t value) {
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

void wi_scaled_rgb_rows(wi_scaled_rgb *rgb, const wi_scaled_job *job, unsigned first, unsigned count,
                        uint8_t *out, size_t stride) {
    const wi_scaled_component *luma = &job->component[0];
    size_t part = scratch_part(rgb);
    for (unsigned r = 0; r < count; r++, out += stride) {
        unsigned row = first + r;
        const uint8_t *y = luma->plane + (size_t)row * luma->stride;
        if (rgb->gray) {
            for (unsigned x = 0; x < rgb->width; x++) {
                out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = y[x];
                out[4 * x + 3] = 0xFF;
            }
            continue;
        }
        uint8_t *scratch = rgb->scratch;
        const uint8_t *cb = chroma_row(rgb, &job->component[1], row, scratch, scratch ? scratch + 2 * rgb->chroma_width : NULL);
        const uint8_t *cr = chroma_row(rgb, &job->component[2], row, scratch ? scratch + part : NULL,
                                       scratch ? scratch + part + 2 * rgb->chroma_width : NULL);
        // jdcolor.c's ycc_rgb_convert with build_ycc_rgb_table's values, computed inline.
        for (unsigned x = 0; x < rgb->width; x++) {
            int32_t luma_value = y[x], blue = cb[x] - 128, red = cr[x] - 128;
            out[4 * x] = clamp(luma_value + ((FIX(1.40200) * red + ONE_HALF) >> SCALEBITS));
            out[4 * x + 1] = clamp(luma_value + ((-FIX(0.34414) * blue + ONE_HALF - FIX(0.71414) * red) >> SCALEBITS));
            out[4 * x + 2] = clamp(luma_value + ((FIX(1.77200) * blue + ONE_HALF) >> SCALEBITS));
            out[4 * x + 3] = 0xFF;
        }
    }
}
