// Our scaled decoder to RGBA rows (scaled_rgba.h).
#include "scaled_rgba.h"

#include <stdio.h> // jpeglib.h needs FILE

#include "wi_jpeg_scaled.h"
#include <jpeglib.h>
#include <stdlib.h>
#include <string.h>

int scaled_rgba_decode(const unsigned char *data, size_t size, unsigned scale, unsigned char **rgba,
                       size_t *capacity, long *pixels) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, data, size);
    jpeg_read_header(&c, TRUE);
    c.out_color_space = JCS_EXT_RGBA;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_calc_output_dimensions(&c);
    size_t need = (size_t)c.output_width * c.output_height * 4;
    if (need > *capacity) {
        free(*rgba);
        *rgba = malloc(need);
        *capacity = *rgba ? need : 0;
    }
    wi_scaled_job job;
    wi_scaled_rgb rgb;
    memset(&job, 0, sizeof job);
    int ok = *rgba != NULL && wi_scaled_setup(&job, &c, (size_t)1 << 30) == WI_SCALED_OK &&
             wi_scaled_rgb_setup(&rgb, &c, &job);
    if (ok) {
        ok = wi_scaled_decode(&job) == WI_SCALED_OK;
        if (ok) {
            wi_scaled_rgb_rows(&rgb, &job, 0, c.output_height, *rgba, (size_t)c.output_width * 4);
        }
        wi_scaled_rgb_free(&rgb);
    }
    *pixels += (long)c.output_width * c.output_height;
    wi_scaled_job_free(&job);
    jpeg_destroy_decompress(&c);
    return ok;
}
