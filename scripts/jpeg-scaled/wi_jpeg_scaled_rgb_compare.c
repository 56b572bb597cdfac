// Differential check of the scaled decoder's RGBA rows (wi_jpeg_scaled_rgb.c) against
// libjpeg-turbo's own full decompress at the same scale (jpeg_start_decompress and
// jpeg_read_scanlines, JCS_EXT_RGBA): shared by the corpus harness and the fuzz target.
#include "wi_jpeg_scaled_compare.h"
#include "wi_jpeg_scaled.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} error_mgr;

static void on_error(j_common_ptr c) {
    longjmp(((error_mgr *)c->err)->jump, 1);
}
static void on_message(j_common_ptr c, int level) {
    (void)c;
    (void)level;
}

/// libjpeg-turbo's RGBA rows at 1/`scale`; NULL when it fails (or the output is over
/// `max_bytes`). `*header_ok` is set once the header parsed.
static uint8_t *reference(const uint8_t *bytes, size_t count, unsigned scale, size_t max_bytes, unsigned *width,
                          unsigned *height, int *header_ok) {
    struct jpeg_decompress_struct c;
    error_mgr err;
    uint8_t *volatile pixels = NULL;
    c.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_error;
    err.pub.emit_message = on_message;
    jpeg_create_decompress(&c);
    if (setjmp(err.jump)) {
        free(pixels);
        pixels = NULL;
        goto done;
    }
    jpeg_mem_src(&c, bytes, (unsigned long)count);
    jpeg_read_header(&c, TRUE);
    *header_ok = 1;
    c.out_color_space = JCS_EXT_RGBA;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_calc_output_dimensions(&c);
    if ((size_t)c.output_width * c.output_height * 4 > max_bytes || c.num_components > 3) {
        goto done;
    }
    jpeg_start_decompress(&c);
    *width = c.output_width;
    *height = c.output_height;
    pixels = malloc((size_t)c.output_width * c.output_height * 4 + 1);
    while (c.output_scanline < c.output_height) {
        JSAMPROW row = pixels + (size_t)c.output_scanline * c.output_width * 4;
        if (jpeg_read_scanlines(&c, &row, 1) == 0) {
            free(pixels);
            pixels = NULL;
            goto done;
        }
    }
done:
    jpeg_destroy_decompress(&c);
    return pixels;
}

wi_compare_result wi_scaled_compare_rgb(const uint8_t *bytes, size_t count, unsigned scale, size_t max_bytes,
                                        char *where, size_t where_size) {
    unsigned width = 0, height = 0;
    int header_ok = 0;
    uint8_t *ref = reference(bytes, count, scale, max_bytes, &width, &height, &header_ok);
    if (!header_ok) {
        free(ref);
        return WI_COMPARE_BOTH_FAIL;
    }
    struct jpeg_decompress_struct c;
    error_mgr err;
    wi_scaled_job job;
    wi_scaled_rgb rgb;
    memset(&job, 0, sizeof job);
    memset(&rgb, 0, sizeof rgb);
    uint8_t *volatile ours = NULL;
    volatile wi_compare_result result = WI_COMPARE_DECLINED;
    c.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_error;
    err.pub.emit_message = on_message;
    jpeg_create_decompress(&c);
    if (setjmp(err.jump)) {
        goto done;
    }
    jpeg_mem_src(&c, bytes, (unsigned long)count);
    jpeg_read_header(&c, TRUE);
    c.out_color_space = JCS_EXT_RGBA;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_calc_output_dimensions(&c);
    if (wi_scaled_setup(&job, &c, max_bytes) != WI_SCALED_OK || !wi_scaled_rgb_setup(&rgb, &c, &job)) {
        goto done;
    }
    wi_scaled_status status = wi_scaled_decode(&job);
    if (status != WI_SCALED_OK) {
        result = status == WI_SCALED_IRREGULAR ? WI_COMPARE_IRREGULAR : WI_COMPARE_DECLINED;
        goto done;
    }
    if (ref == NULL) {
        result = WI_COMPARE_WE_ACCEPT_LIBJPEG_FAILS;
        goto done;
    }
    if (rgb.width != width || rgb.height != height) {
        snprintf(where, where_size, "size %ux%u, libjpeg %ux%u", rgb.width, rgb.height, width, height);
        result = WI_COMPARE_DIFFER;
        goto done;
    }
    ours = malloc((size_t)width * height * 4 + 1);
    // Rows in uneven strips, as callers ask for them.
    for (unsigned y = 0, n = 1; y < height; y += n, n = n % 7 + 1) {
        unsigned rows = height - y < n ? height - y : n;
        wi_scaled_rgb_rows(&rgb, &job, y, rows, ours + (size_t)y * width * 4, (size_t)width * 4);
    }
    result = WI_COMPARE_SAME;
    for (size_t i = 0; i < (size_t)width * height * 4; i++) {
        if (ours[i] != ref[i]) {
            snprintf(where, where_size, "RGBA %ux%u at %zu,%zu channel %zu: ours %d libjpeg %d", width, height,
                     i / 4 % width, i / 4 / width, i % 4, ours[i], ref[i]);
            result = WI_COMPARE_DIFFER;
            break;
        }
    }
done:
    free(ours);
    free(ref);
    wi_scaled_rgb_free(&rgb);
    wi_scaled_job_free(&job);
    jpeg_destroy_decompress(&c);
    return result;
}
