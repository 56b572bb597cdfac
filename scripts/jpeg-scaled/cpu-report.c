// Our side of Benchmarks/compare's jpeg-scaled rows: the scaled decoder alone, to RGBA rows
// at 1/SCALE, one thread, timed per iteration over all inputs; prints webimage-bench's JSON
// report. PyTurboJPEG decoding the same files at the same scale is the peer (peers.py).
//
//   cpu-report SCALE ITERATIONS WARMUP FILE...
#include <stdio.h>

#include "wi_jpeg_scaled.h"
#include <jpeglib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int fail(const char *reason, const char *path) {
    printf("{\"mode\": \"jpeg-scaled\", \"ok\": false, \"notMeasured\": \"%s: %s\"}\n", reason, path);
    return 1;
}

/// One decode of `data` to RGBA at 1/scale; 0 when our decoder declines it.
static int decode(const unsigned char *data, size_t size, unsigned scale, unsigned char **rgba, size_t *capacity,
                  long *pixels) {
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

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: cpu-report SCALE ITERATIONS WARMUP FILE...\n");
        return 2;
    }
    unsigned scale = (unsigned)atoi(argv[1]);
    int iterations = atoi(argv[2]), warmup = atoi(argv[3]), count = argc - 4;
    unsigned char **files = calloc((size_t)count, sizeof *files);
    size_t *sizes = calloc((size_t)count, sizeof *sizes);
    for (int i = 0; i < count; i++) {
        FILE *f = fopen(argv[4 + i], "rb");
        if (f == NULL || fseek(f, 0, SEEK_END) != 0) return fail("cannot read", argv[4 + i]);
        long n = ftell(f);
        rewind(f);
        files[i] = malloc((size_t)n);
        if (n <= 0 || files[i] == NULL || fread(files[i], 1, (size_t)n, f) != (size_t)n) return fail("cannot read", argv[4 + i]);
        fclose(f);
        sizes[i] = (size_t)n;
    }
    unsigned char *rgba = NULL;
    size_t capacity = 0;
    long pixels = 0;
    for (int w = 0; w < warmup; w++)
        for (int i = 0; i < count; i++)
            if (!decode(files[i], sizes[i], scale, &rgba, &capacity, &pixels)) return fail("declined", argv[4 + i]);
    printf("{\"mode\": \"jpeg-scaled\", \"ok\": true, \"opsPerSample\": %d, \"samples\": [", count);
    double cpu_start = cpu(), wall = 0;
    for (int it = 0; it < (iterations > 0 ? iterations : 1); it++) {
        pixels = 0;
        double start = now();
        for (int i = 0; i < count; i++)
            if (!decode(files[i], sizes[i], scale, &rgba, &capacity, &pixels)) return fail("declined", argv[4 + i]);
        double took = now() - start;
        wall += took;
        printf("%s%.9f", it ? ", " : "", took);
    }
    printf("], \"coresBusy\": %.3f, \"pixelsPerSample\": %ld}\n", wall > 0 ? (cpu() - cpu_start) / wall : 0.0, pixels);
    return 0;
}
