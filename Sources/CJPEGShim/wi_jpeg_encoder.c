#include "CJPEGShim.h"
#include "wi_jpeg_error.h"

#include <stdlib.h>
#include <string.h>

struct wi_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    wi_error_mgr err;
    unsigned char *out; // malloc'd by jpeg_mem_dest, freed here
    unsigned long out_size;
    int started;
    // Planar input: one row of MCUs per plane, padded to whole blocks (malloc'd by
    // wi_jenc_start_planes, freed with the encoder), and the row pointers libjpeg reads.
    uint8_t *plane_buffer[3];
    JSAMPROW plane_rows[3][2 * DCTSIZE];
    size_t plane_stride[3];
};

wi_jpeg_encoder *wi_jenc_create(void) {
    wi_jpeg_encoder *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return NULL;
    }
    wi_error_init(&e->err);
    e->cinfo.err = &e->err.pub;
    if (setjmp(e->err.jump)) {
        jpeg_destroy_compress(&e->cinfo);
        free(e);
        return NULL;
    }
    jpeg_create_compress(&e->cinfo);
    return e;
}

void wi_jenc_destroy(wi_jpeg_encoder *e) {
    if (e == NULL) {
        return;
    }
    jpeg_destroy_compress(&e->cinfo);
    free(e->out);
    for (int i = 0; i < 3; i++) {
        free(e->plane_buffer[i]);
    }
    free(e);
}

const char *wi_jenc_message(const wi_jpeg_encoder *e) {
    return e->err.message;
}

#define GUARD(e)                                   \
    if ((e)->err.failed) {                         \
        return WI_JPEG_ERROR;                      \
    }                                              \
    if (setjmp((e)->err.jump)) {                   \
        return WI_JPEG_ERROR;                      \
    }

wi_jpeg_status wi_jenc_start(wi_jpeg_encoder *e, unsigned width, unsigned height, int quality,
                             int input_rgba, int progressive, int optimize) {
    GUARD(e)
    struct jpeg_compress_struct *c = &e->cinfo;
    jpeg_mem_dest(c, &e->out, &e->out_size);
    c->image_width = width;
    c->image_height = height;
    c->input_components = input_rgba ? 4 : 3;
    c->in_color_space = input_rgba ? JCS_EXT_RGBA : JCS_RGB;
    jpeg_set_defaults(c);
    jpeg_set_quality(c, quality, TRUE);
    c->optimize_coding = optimize ? TRUE : FALSE;
    if (progressive) {
        jpeg_simple_progression(c);
    }
    jpeg_start_compress(c, TRUE);
    e->started = 1;
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jenc_write_rows(wi_jpeg_encoder *e, const uint8_t *base, size_t stride, unsigned count) {
    GUARD(e)
    struct jpeg_compress_struct *c = &e->cinfo;
    unsigned done = 0;
    while (done < count) {
        JSAMPROW rows[8];
        unsigned n = count - done;
        if (n > 8) {
            n = 8;
        }
        for (unsigned i = 0; i < n; i++) {
            // libjpeg never writes through input rows; the cast only satisfies JSAMPROW.
            rows[i] = (JSAMPROW)(base + (size_t)(done + i) * stride);
        }
        unsigned written = jpeg_write_scanlines(c, rows, n);
        if (written == 0) {
            wi_error_fail((j_common_ptr)c, "libjpeg accepted no rows");
        }
        done += written;
    }
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jenc_start_planes(wi_jpeg_encoder *e, unsigned width, unsigned height, int quality,
                                    int progressive, int optimize) {
    GUARD(e)
    struct jpeg_compress_struct *c = &e->cinfo;
    jpeg_mem_dest(c, &e->out, &e->out_size);
    c->image_width = width;
    c->image_height = height;
    c->input_components = 3;
    c->in_color_space = JCS_YCbCr;
    // For YCbCr input the defaults are what wi_jenc_start writes: 2x2 luma, 1x1 chroma.
    jpeg_set_defaults(c);
    jpeg_set_quality(c, quality, TRUE);
    c->optimize_coding = optimize ? TRUE : FALSE;
    if (progressive) {
        jpeg_simple_progression(c);
    }
    c->raw_data_in = TRUE;
    jpeg_start_compress(c, TRUE);
    e->started = 1;
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        size_t stride = ((size_t)p->width_in_blocks + (size_t)p->h_samp_factor) * DCTSIZE;
        e->plane_buffer[i] = malloc(stride * (size_t)(p->v_samp_factor * DCTSIZE));
        if (e->plane_buffer[i] == NULL) {
            wi_error_fail((j_common_ptr)c, "Out of memory for a row of planar samples");
        }
        e->plane_stride[i] = stride;
        for (int r = 0; r < p->v_samp_factor * DCTSIZE; r++) {
            e->plane_rows[i][r] = e->plane_buffer[i] + (size_t)r * stride;
        }
    }
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jenc_write_planes(wi_jpeg_encoder *e, const uint8_t *const planes[3], const size_t strides[3]) {
    GUARD(e)
    struct jpeg_compress_struct *c = &e->cinfo;
    if (!c->raw_data_in || e->plane_buffer[0] == NULL) {
        wi_error_fail((j_common_ptr)c, "The encoder was not started for planes");
    }
    JDIMENSION lines = (JDIMENSION)(c->max_v_samp_factor * DCTSIZE);
    for (JDIMENSION top = 0; c->next_scanline < c->image_height; top += lines) {
        for (int i = 0; i < 3; i++) {
            const jpeg_component_info *p = &c->comp_info[i];
            unsigned rows = (unsigned)(p->v_samp_factor * DCTSIZE);
            size_t first = (size_t)top / (size_t)(c->max_v_samp_factor / p->v_samp_factor);
            size_t width = p->downsampled_width, padded = (size_t)p->width_in_blocks * DCTSIZE;
            for (unsigned r = 0; r < rows; r++) {
                // Past the last row, the last row again (libjpeg's expand_bottom_edge).
                size_t y = first + r < p->downsampled_height ? first + r : p->downsampled_height - 1;
                uint8_t *row = e->plane_rows[i][r];
                memcpy(row, planes[i] + y * strides[i], width);
                memset(row + width, row[width - 1], padded - width);
            }
        }
        JSAMPARRAY data[3] = {e->plane_rows[0], e->plane_rows[1], e->plane_rows[2]};
        if (jpeg_write_raw_data(c, data, lines) == 0) {
            wi_error_fail((j_common_ptr)c, "libjpeg accepted no rows");
        }
    }
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jenc_finish(wi_jpeg_encoder *e, const uint8_t **bytes, size_t *count) {
    GUARD(e)
    jpeg_finish_compress(&e->cinfo);
    *bytes = e->out;
    *count = (size_t)e->out_size;
    return WI_JPEG_OK;
}
