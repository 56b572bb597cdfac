#include "CJPEGShim.h"
#include "wi_jpeg_error.h"

#include <stdlib.h>

struct wi_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    wi_error_mgr err;
    unsigned char *out; // malloc'd by jpeg_mem_dest, freed here
    unsigned long out_size;
    int started;
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

wi_jpeg_status wi_jenc_finish(wi_jpeg_encoder *e, const uint8_t **bytes, size_t *count) {
    GUARD(e)
    jpeg_finish_compress(&e->cinfo);
    *bytes = e->out;
    *count = (size_t)e->out_size;
    return WI_JPEG_OK;
}
