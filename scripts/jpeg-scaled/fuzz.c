// libFuzzer target: the scaled decoder against libjpeg-turbo's raw-data decode, and its
// RGBA rows against libjpeg-turbo's jpeg_read_scanlines, both scales, every input. Aborts
// where both decode and the output differs, or where ours decodes what libjpeg-turbo refuses.
#include "wi_jpeg_scaled_compare.h"
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    for (unsigned scale = 4; scale <= 8; scale += 4) {
        char where[256] = "";
        wi_compare_result r = wi_scaled_compare(data, size, scale, (size_t)4 << 20, where, sizeof where);
        if (r == WI_COMPARE_DIFFER || r == WI_COMPARE_WE_ACCEPT_LIBJPEG_FAILS) {
            fprintf(stderr, "scaled decoder disagrees at 1/%u (%d): %s\n", scale, (int)r, where);
            abort();
        }
        r = wi_scaled_compare_rgb(data, size, scale, (size_t)16 << 20, where, sizeof where);
        if (r == WI_COMPARE_DIFFER || r == WI_COMPARE_WE_ACCEPT_LIBJPEG_FAILS) {
            fprintf(stderr, "scaled decoder's RGBA disagrees at 1/%u (%d): %s\n", scale, (int)r, where);
            abort();
        }
    }
    return 0;
}
