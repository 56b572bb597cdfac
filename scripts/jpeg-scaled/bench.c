// CPU per decode, one thread: ours vs libjpeg-turbo's raw-data decode at 1/scale; with
// RGB=1 set, RGBA rows (ours: planes then wi_jpeg_scaled_rgb.c) vs jpeg_read_scanlines.
#include <stdio.h> // jpeglib.h needs FILE

#include "scaled_rgba.h"
#include "wi_jpeg_scaled.h"
#include <jpeglib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void libjpeg_raw(const unsigned char *b, size_t n, unsigned scale) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, b, n);
    jpeg_read_header(&c, TRUE);
    c.raw_data_out = TRUE;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_start_decompress(&c);
    static unsigned char buf[3][32][8192];
    JSAMPROW rows[3][32];
    for (int i = 0; i < 3; i++)
        for (int r = 0; r < 32; r++) rows[i][r] = buf[i][r];
    int lines = c.max_v_samp_factor * c.min_DCT_scaled_size;
    while (c.output_scanline < c.output_height) {
        JSAMPARRAY d[3] = {rows[0], rows[1], rows[2]};
        jpeg_read_raw_data(&c, d, lines);
    }
    jpeg_abort_decompress(&c);
    jpeg_destroy_decompress(&c);
}

static void ours(const unsigned char *b, size_t n, unsigned scale) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, b, n);
    jpeg_read_header(&c, TRUE);
    c.raw_data_out = TRUE;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_calc_output_dimensions(&c);
    wi_scaled_job job;
    memset(&job, 0, sizeof job);
    if (wi_scaled_setup(&job, &c, (size_t)1 << 30) != WI_SCALED_OK || wi_scaled_decode(&job) != WI_SCALED_OK) {
        fprintf(stderr, "ours failed\n");
        exit(1);
    }
    wi_scaled_job_free(&job);
    jpeg_destroy_decompress(&c);
}

static unsigned char *rgba; // the output image, as large as the largest decode

static void libjpeg_rgba(const unsigned char *b, size_t n, unsigned scale) {
    struct jpeg_decompress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_decompress(&c);
    jpeg_mem_src(&c, b, n);
    jpeg_read_header(&c, TRUE);
    c.out_color_space = JCS_EXT_RGBA;
    c.scale_num = 1;
    c.scale_denom = scale;
    jpeg_start_decompress(&c);
    while (c.output_scanline < c.output_height) {
        JSAMPROW rows[8];
        for (int r = 0; r < 8; r++) rows[r] = rgba + (size_t)(c.output_scanline + r) * c.output_width * 4;
        jpeg_read_scanlines(&c, rows, 8);
    }
    jpeg_finish_decompress(&c);
    jpeg_destroy_decompress(&c);
}

static size_t rgba_capacity;

static void ours_rgba(const unsigned char *b, size_t n, unsigned scale) {
    long pixels = 0;
    if (!scaled_rgba_decode(b, n, scale, &rgba, &rgba_capacity, &pixels)) {
        fprintf(stderr, "ours failed\n");
        exit(1);
    }
}

int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
    long n = f != NULL && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    unsigned char *b = n > 0 ? malloc((size_t)n) : NULL;
    if (b == NULL || fseek(f, 0, SEEK_SET) != 0 || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "usage: bench FILE.jpg [ITERATIONS] (cannot read %s)\n", argc > 1 ? argv[1] : "a file");
        return 2;
    }
    fclose(f);
    int iters = argc > 2 ? atoi(argv[2]) : 10;
    int rgb = getenv("RGB") != NULL;
    rgba_capacity = (size_t)256 << 20; // RGBA of a 1/4 decode of up to 1 gigapixel
    rgba = malloc(rgba_capacity);
    void (*theirs_fn)(const unsigned char *, size_t, unsigned) = rgb ? libjpeg_rgba : libjpeg_raw;
    void (*ours_fn)(const unsigned char *, size_t, unsigned) = rgb ? ours_rgba : ours;
    for (unsigned s = 8; s >= 4; s -= 4) {
        if (getenv("SCALE") && (unsigned)atoi(getenv("SCALE")) != s) continue;
        double best[2] = {1e9, 1e9};
        for (int rep = 0; rep < 3; rep++) {
            double t0 = cpu();
            for (int i = 0; i < iters; i++) theirs_fn(b, n, s);
            double t1 = cpu();
            for (int i = 0; i < iters; i++) ours_fn(b, n, s);
            double t2 = cpu();
            if ((t1 - t0) / iters < best[0]) best[0] = (t1 - t0) / iters;
            if ((t2 - t1) / iters < best[1]) best[1] = (t2 - t1) / iters;
        }
        printf("%s 1/%u: libjpeg-turbo %s %.2f ms, ours %.2f ms, %.2fx\n", argv[1], s, rgb ? "RGBA" : "raw",
               best[0] * 1e3, best[1] * 1e3, best[0] / best[1]);
    }
    return 0;
}
