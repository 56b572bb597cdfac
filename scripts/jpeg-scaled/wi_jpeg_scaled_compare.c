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

typedef struct {
    uint8_t *data[3];
    size_t width[3], height[3];
} planes;

static void planes_free(planes *p) {
    for (int i = 0; i < 3; i++) {
        free(p->data[i]);
    }
}

/// libjpeg's raw-data decode into whole planes; 0 when libjpeg fails.
static int reference(const uint8_t *bytes, size_t count, unsigned scale, size_t max_bytes, planes *out,
                     int *header_ok) {
    struct jpeg_decompress_struct c;
    error_mgr err;
    volatile int ok = 0;
    uint8_t *volatile buffer = NULL;
    c.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = on_error;
    err.pub.emit_message = on_message;
    jpeg_create_decompress(&c);
    if (setjmp(err.jump)) {
        goto done;
    }
    jpeg_mem_src(&c, bytes, (unsigned long)count);
    jpeg_read_header(&c, TRUE);
    *header_ok = 1;
    c.raw_data_out = TRUE;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_calc_output_dimensions(&c);
    size_t total = 0;
    for (int i = 0; i < c.num_components && i < 3; i++) {
        total += (size_t)c.comp_info[i].downsampled_width * c.comp_info[i].downsampled_height;
    }
    if (c.num_components > 3 || total > max_bytes) {
        goto done;
    }
    jpeg_start_decompress(&c);
    int rows_per_call = c.max_v_samp_factor * c.min_DCT_scaled_size;
    JSAMPROW rows[3][32];
    size_t stride[3];
    size_t per = 0;
    for (int i = 0; i < c.num_components; i++) {
        jpeg_component_info *p = &c.comp_info[i];
        stride[i] = ((size_t)p->width_in_blocks + (size_t)p->h_samp_factor) * (size_t)p->DCT_scaled_size;
        per += stride[i] * 32;
        out->width[i] = p->downsampled_width;
        out->height[i] = p->downsampled_height;
        out->data[i] = malloc(out->width[i] * out->height[i] + 1);
    }
    buffer = malloc(per);
    size_t offset = 0;
    for (int i = 0; i < c.num_components; i++) {
        for (int r = 0; r < 32; r++) {
            rows[i][r] = buffer + offset + (size_t)r * stride[i];
        }
        offset += stride[i] * 32;
    }
    size_t done[3] = {0, 0, 0};
    while (c.output_scanline < c.output_height) {
        JSAMPARRAY data[3] = {rows[0], rows[1], rows[2]};
        if (jpeg_read_raw_data(&c, data, (JDIMENSION)rows_per_call) == 0) {
            goto done;
        }
        for (int i = 0; i < c.num_components; i++) {
            jpeg_component_info *p = &c.comp_info[i];
            size_t made = (size_t)p->v_samp_factor * (size_t)p->DCT_scaled_size;
            for (size_t r = 0; r < made && done[i] < out->height[i]; r++, done[i]++) {
                memcpy(out->data[i] + done[i] * out->width[i], rows[i][r], out->width[i]);
            }
        }
    }
    ok = 1;
done:
    free(buffer);
    jpeg_destroy_decompress(&c);
    return ok;
}

wi_compare_result wi_scaled_compare(const uint8_t *bytes, size_t count, unsigned scale, size_t max_bytes,
                                    char *where, size_t where_size) {
    planes ref = {{NULL}, {0}, {0}};
    int header_ok = 0;
    int ref_ok = reference(bytes, count, scale, max_bytes, &ref, &header_ok);
    if (!header_ok) {
        planes_free(&ref);
        return WI_COMPARE_BOTH_FAIL;
    }
    struct jpeg_decompress_struct c;
    error_mgr err;
    wi_scaled_job job;
    memset(&job, 0, sizeof job);
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
    c.raw_data_out = TRUE;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_calc_output_dimensions(&c);
    if (wi_scaled_setup(&job, &c, max_bytes) != WI_SCALED_OK) {
        goto done;
    }
    wi_scaled_status status = wi_scaled_decode(&job);
    if (status != WI_SCALED_OK) {
        result = status == WI_SCALED_IRREGULAR ? WI_COMPARE_IRREGULAR : WI_COMPARE_DECLINED;
        goto done;
    }
    if (!ref_ok) {
        result = WI_COMPARE_WE_ACCEPT_LIBJPEG_FAILS;
        goto done;
    }
    result = WI_COMPARE_SAME;
    for (int i = 0; i < job.count && result == WI_COMPARE_SAME; i++) {
        const wi_scaled_component *p = &job.component[i];
        if (ref.width[i] > p->stride || ref.height[i] > p->rows) {
            snprintf(where, where_size, "plane %d: %zux%zu larger than ours %zux%zu", i, ref.width[i],
                     ref.height[i], p->stride, p->rows);
            result = WI_COMPARE_DIFFER;
            break;
        }
        for (size_t y = 0; y < ref.height[i] && result == WI_COMPARE_SAME; y++) {
            for (size_t x = 0; x < ref.width[i]; x++) {
                uint8_t a = p->plane[y * p->stride + x], b = ref.data[i][y * ref.width[i] + x];
                if (a != b) {
                    snprintf(where, where_size, "plane %d (%zux%zu) at %zu,%zu: ours %d libjpeg %d", i,
                             ref.width[i], ref.height[i], x, y, a, b);
                    result = WI_COMPARE_DIFFER;
                    break;
                }
            }
        }
    }
done:
    wi_scaled_job_free(&job);
    jpeg_destroy_decompress(&c);
    planes_free(&ref);
    return result;
}
