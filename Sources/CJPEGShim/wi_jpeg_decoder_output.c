// Making a JPEG's output: RGBA (or CMYK) rows, strips and YCbCr planes from libjpeg-turbo,
// or from WebImage's scaled baseline decoder (wi_jpeg_scaled.c) where wi_jdec_start hands
// a 1/4 or 1/8 decode to it. The input side is wi_jpeg_decoder.c.
#include "wi_jpeg_decoder_internal.h"

#include <stdatomic.h>
#include <stdlib.h>

/// Planes the scaled decoder may allocate for one file (at most 1/16 of the pixels a
/// decode at 1/4 covers, so 268 MB for libjpeg's largest 65500 × 65500 image).
static const size_t scaled_max_bytes = (size_t)1 << 28;

/// Decodes the scaled decoder has made in this process (wi_jpeg_scaled_decode_count).
static atomic_ulong scaled_decodes;

// MARK: Decompression

wi_jpeg_status wi_jdec_configure(wi_jpeg_decoder *d, unsigned scale_denom, int buffered,
                                 unsigned *out_width, unsigned *out_height) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    c->out_color_space = (c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK)
                             ? JCS_CMYK
                             : JCS_EXT_RGBA;
    c->scale_num = 1;
    c->scale_denom = scale_denom;
    c->buffered_image = buffered ? TRUE : FALSE;
    jpeg_calc_output_dimensions(c);
    *out_width = c->output_width;
    *out_height = c->output_height;
    return WI_JPEG_OK;
}

void wi_jdec_disable_block_smoothing(wi_jpeg_decoder *d) {
    d->cinfo.do_block_smoothing = FALSE;
}

// A planar or RGBA decode at 1/4 or 1/8 of complete input goes to the scaled decoder
// first; a file it declines (for RGBA output also one whose rows wi_jpeg_scaled_rgb.c
// cannot make as libjpeg would), or whose data it finds irregular, goes on to libjpeg as
// if it had not looked (it reads the source's bytes without moving libjpeg's position).
static int decode_scaled(wi_jpeg_decoder *d) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    // Where it pays (mode 1): at 1/8 and from a megapixel up, since building its tables
    // costs ~70 µs (a 128 × 128 file decodes 2.8× slower than with libjpeg-turbo).
    int pays = c->scale_denom == 8 && (uint64_t)c->image_width * c->image_height >= 1000000;
    if (d->scaled_allowed == 0 || (d->scaled_allowed == 1 && !pays) || c->buffered_image ||
        (c->raw_data_out && c->num_components != 3) || !d->is_complete || d->in_fake_eoi) {
        return 0;
    }
    if (wi_scaled_setup(&d->scaled, c, scaled_max_bytes) == WI_SCALED_OK &&
        (c->raw_data_out || wi_scaled_rgb_setup(&d->scaled_rgb, c, &d->scaled)) &&
        wi_scaled_decode(&d->scaled) == WI_SCALED_OK) {
        return 1;
    }
    wi_scaled_job_free(&d->scaled);
    wi_scaled_rgb_free(&d->scaled_rgb);
    return 0;
}

wi_jpeg_status wi_jdec_start(wi_jpeg_decoder *d) {
    GUARD(d)
    if (!d->scaled_used && decode_scaled(d)) {
        d->scaled_used = 1;
        atomic_fetch_add_explicit(&scaled_decodes, 1, memory_order_relaxed);
        return WI_JPEG_OK;
    }
    // Outside buffered-image mode, starting a multi-scan file reads all its scans.
    d->absorbing_scans = jpeg_has_multiple_scans(&d->cinfo) && !d->cinfo.buffered_image;
    boolean started = jpeg_start_decompress(&d->cinfo);
    d->absorbing_scans = 0;
    return started ? WI_JPEG_OK : WI_JPEG_SUSPENDED;
}

// RGBA rows from the scaled decoder's planes: up to `max_rows` of the rest, the first at
// `base`; how many.
static unsigned scaled_rows(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned max_rows) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (c->raw_data_out) {
        wi_error_fail((j_common_ptr)c, "The decoder was configured for planes, not rows");
    }
    unsigned left = c->output_height - d->scaled_row, n = max_rows < left ? max_rows : left;
    wi_scaled_rgb_rows(&d->scaled_rgb, &d->scaled, d->scaled_row, n, base, stride);
    d->scaled_row += n;
    return n;
}

wi_jpeg_status wi_jdec_read_rows(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned *scanline) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->scaled_used) {
        scaled_rows(d, base + (size_t)d->scaled_row * stride, stride, c->output_height);
        *scanline = d->scaled_row;
        return WI_JPEG_OK;
    }
    wi_jpeg_status status = WI_JPEG_OK;
    while (c->output_scanline < c->output_height) {
        JSAMPROW rows[8];
        unsigned n = c->output_height - c->output_scanline;
        if (n > 8) {
            n = 8;
        }
        for (unsigned i = 0; i < n; i++) {
            rows[i] = base + (size_t)(c->output_scanline + i) * stride;
        }
        if (jpeg_read_scanlines(c, rows, n) == 0) {
            status = WI_JPEG_SUSPENDED;
            break;
        }
        if (d->is_complete && wi_jdec_is_truncated(d)) {
            break; // the caller rejects truncated data: don't paint the grey rest
        }
    }
    *scanline = c->output_scanline;
    return status;
}

wi_jpeg_status wi_jdec_read_strip(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned max_rows,
                                  unsigned *rows) {
    *rows = 0;
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->scaled_used) {
        *rows = scaled_rows(d, base, stride, max_rows);
        return WI_JPEG_OK;
    }
    unsigned done = 0;
    while (done < max_rows && c->output_scanline < c->output_height) {
        JSAMPROW pointers[16];
        unsigned n = max_rows - done;
        if (n > 16) {
            n = 16;
        }
        for (unsigned i = 0; i < n; i++) {
            pointers[i] = base + (size_t)(done + i) * stride;
        }
        JDIMENSION got = jpeg_read_scanlines(c, pointers, n);
        if (got == 0) {
            *rows = done;
            return WI_JPEG_SUSPENDED;
        }
        done += got;
        if (d->is_complete && wi_jdec_is_truncated(d)) {
            break;
        }
    }
    *rows = done;
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jdec_finish(wi_jpeg_decoder *d) {
    GUARD(d)
    if (d->scaled_used) {
        return WI_JPEG_OK; // libjpeg never started
    }
    return jpeg_finish_decompress(&d->cinfo) ? WI_JPEG_OK : WI_JPEG_SUSPENDED;
}

// MARK: Planar decoding

int wi_jdec_has_planes(const wi_jpeg_decoder *d) {
    const struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->err.failed || c->num_components != 3 || c->jpeg_color_space != JCS_YCbCr) {
        return 0;
    }
    const jpeg_component_info *y = &c->comp_info[0];
    for (int i = 1; i < 3; i++) {
        if (c->comp_info[i].h_samp_factor != 1 || c->comp_info[i].v_samp_factor != 1) {
            return 0;
        }
    }
    return y->h_samp_factor >= 1 && y->h_samp_factor <= 2 && y->v_samp_factor >= 1 && y->v_samp_factor <= 2;
}

wi_jpeg_status wi_jdec_configure_planes(wi_jpeg_decoder *d, unsigned scale_denom, wi_jpeg_plane planes[3]) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (!wi_jdec_has_planes(d)) {
        wi_error_fail((j_common_ptr)c, "The JPEG is not 3-component YCbCr with 1x1 chroma");
    }
    c->raw_data_out = TRUE;
    c->out_color_space = JCS_YCbCr;
    c->scale_num = 1;
    c->scale_denom = scale_denom;
    c->buffered_image = FALSE;
    jpeg_calc_output_dimensions(c);
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        planes[i].width = p->downsampled_width;
        planes[i].height = p->downsampled_height;
        // downsampled_width is this, rounded up (jdmaster.c).
        double h = (double)(p->h_samp_factor * p->DCT_scaled_size) / (double)(c->max_h_samp_factor * DCTSIZE);
        double v = (double)(p->v_samp_factor * p->DCT_scaled_size) / (double)(c->max_v_samp_factor * DCTSIZE);
        planes[i].extent_width = (double)c->image_width * h;
        planes[i].extent_height = (double)c->image_height * v;
    }
    return WI_JPEG_OK;
}

// A row of MCUs for every plane: v_samp × DCT_scaled_size rows of whole blocks each.
static void allocate_planes(wi_jpeg_decoder *d) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        int rows = p->v_samp_factor * p->DCT_scaled_size;
        // Whole MCUs: libjpeg may write the blocks that pad the last MCU of a row.
        size_t stride = ((size_t)p->width_in_blocks + (size_t)p->h_samp_factor) * (size_t)p->DCT_scaled_size;
        d->plane_buffer[i] = malloc(stride * (size_t)rows);
        if (d->plane_buffer[i] == NULL) {
            wi_error_fail((j_common_ptr)c, "Out of memory for a row of planar samples");
        }
        d->plane_stride[i] = stride;
        for (int r = 0; r < rows; r++) {
            d->plane_rows[i][r] = d->plane_buffer[i] + (size_t)r * stride;
        }
    }
}

wi_jpeg_status wi_jdec_read_planes(wi_jpeg_decoder *d, const uint8_t *rows[3], size_t strides[3],
                                   unsigned counts[3]) {
    for (int i = 0; i < 3; i++) {
        counts[i] = 0;
    }
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (!c->raw_data_out) {
        wi_error_fail((j_common_ptr)c, "The decoder was not configured for planes");
    }
    if (d->scaled_used) {
        // The rows libjpeg would hand out: a row of MCUs per call.
        for (int i = 0; i < 3; i++) {
            const jpeg_component_info *p = &c->comp_info[i];
            const wi_scaled_component *plane = &d->scaled.component[i];
            unsigned made = (unsigned)(p->v_samp_factor * p->DCT_scaled_size);
            unsigned left = p->downsampled_height - d->plane_done[i];
            counts[i] = made < left ? made : left;
            rows[i] = plane->plane + (size_t)d->plane_done[i] * plane->stride;
            strides[i] = plane->stride;
            d->plane_done[i] += counts[i];
        }
        return WI_JPEG_OK;
    }
    if (c->output_scanline >= c->output_height) {
        return WI_JPEG_OK;
    }
    if (d->plane_buffer[0] == NULL) {
        allocate_planes(d);
    }
    JSAMPARRAY data[3] = {d->plane_rows[0], d->plane_rows[1], d->plane_rows[2]};
    JDIMENSION lines = (JDIMENSION)(c->max_v_samp_factor * c->min_DCT_scaled_size);
    if (jpeg_read_raw_data(c, data, lines) == 0) {
        return WI_JPEG_SUSPENDED;
    }
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        unsigned made = (unsigned)(p->v_samp_factor * p->DCT_scaled_size);
        unsigned left = p->downsampled_height - d->plane_done[i];
        counts[i] = made < left ? made : left;
        d->plane_done[i] += counts[i];
        rows[i] = d->plane_buffer[i];
        strides[i] = d->plane_stride[i];
    }
    return WI_JPEG_OK;
}

void wi_jdec_allow_scaled_decoder(wi_jpeg_decoder *d, int mode) {
    d->scaled_allowed = mode;
}

int wi_jdec_used_scaled_decoder(const wi_jpeg_decoder *d) {
    return d->scaled_used;
}


unsigned long wi_jpeg_scaled_decode_count(void) {
    return atomic_load_explicit(&scaled_decodes, memory_order_relaxed);
}
