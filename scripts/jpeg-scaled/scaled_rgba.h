// Our scaled decoder to RGBA rows, as the jpeg-scaled benchmarks time it (bench.c's RGB=1
// side and cpu-report.c, Benchmarks/compare's side of the jpeg-scaled rows).
#ifndef SCALED_RGBA_H
#define SCALED_RGBA_H

#include <stddef.h>

/// One decode of `data` to RGBA at 1/scale into `*rgba` (grown to the image's size, its
/// size in `*capacity`); adds the image's pixels to `*pixels`. 0 when our decoder declines it.
int scaled_rgba_decode(const unsigned char *data, size_t size, unsigned scale, unsigned char **rgba,
                       size_t *capacity, long *pixels);

#endif
