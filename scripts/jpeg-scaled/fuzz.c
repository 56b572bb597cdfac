// libFuzzer target: the scaled decoder against libjpeg-turbo's raw-data decode, both
// scales, every input. Aborts where both decode and the planes differ, or where ours
// decodes what libjpeg-turbo refuses.
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
    }
    return 0;
}
