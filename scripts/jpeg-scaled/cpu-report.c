// Our side of Benchmarks/compare's jpeg-scaled rows: the scaled decoder alone, to RGBA rows
// at 1/SCALE, one thread, timed per iteration over all inputs; prints webimage-bench's JSON
// report. PyTurboJPEG decoding the same files at the same scale is the peer (peers.py).
//
//   cpu-report SCALE ITERATIONS WARMUP FILE...
#include <stdio.h>

#include "scaled_rgba.h"
#include <stdlib.h>
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
            if (!scaled_rgba_decode(files[i], sizes[i], scale, &rgba, &capacity, &pixels)) return fail("declined", argv[4 + i]);
    printf("{\"mode\": \"jpeg-scaled\", \"ok\": true, \"opsPerSample\": %d, \"samples\": [", count);
    double cpu_start = cpu(), wall = 0;
    for (int it = 0; it < (iterations > 0 ? iterations : 1); it++) {
        pixels = 0;
        double start = now();
        for (int i = 0; i < count; i++)
            if (!scaled_rgba_decode(files[i], sizes[i], scale, &rgba, &capacity, &pixels)) return fail("declined", argv[4 + i]);
        double took = now() - start;
        wall += took;
        printf("%s%.9f", it ? ", " : "", took);
    }
    printf("], \"coresBusy\": %.3f, \"pixelsPerSample\": %ld}\n", wall > 0 ? (cpu() - cpu_start) / wall : 0.0, pixels);
    return 0;
}
