// Differential check of the scaled decoder against libjpeg-turbo's raw-data decode:
// shared by the corpus harness and the fuzz target.
#ifndef WI_JPEG_SCALED_COMPARE_H
#define WI_JPEG_SCALED_COMPARE_H
#include <stddef.h>
#include <stdint.h>

typedef enum {
    WI_COMPARE_SAME = 0,      // both decoded; planes equal
    WI_COMPARE_DECLINED = 1,  // ours declined (libjpeg's result does not matter)
    WI_COMPARE_IRREGULAR = 2, // ours handed it back (libjpeg decoded it, or failed)
    WI_COMPARE_BOTH_FAIL = 3, // libjpeg failed to read the header
    WI_COMPARE_DIFFER = 10,   // both decoded, planes differ
    WI_COMPARE_WE_ACCEPT_LIBJPEG_FAILS = 11,
} wi_compare_result;

/// Decodes `bytes` with both at 1/`scale`; on DIFFER, `*where` says plane, x, y, values.
wi_compare_result wi_scaled_compare(const uint8_t *bytes, size_t count, unsigned scale, size_t max_bytes,
                                    char *where, size_t where_size);
/// The same for RGBA rows (wi_jpeg_scaled_rgb.c) against libjpeg-turbo's
/// jpeg_read_scanlines with JCS_EXT_RGBA output; `max_bytes` bounds the RGBA image.
wi_compare_result wi_scaled_compare_rgb(const uint8_t *bytes, size_t count, unsigned scale, size_t max_bytes,
                                        char *where, size_t where_size);
#endif
