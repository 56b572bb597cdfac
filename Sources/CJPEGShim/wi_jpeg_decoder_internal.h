// The decoder object behind CJPEGShim.h's wi_jdec_* calls, shared by its two files
// (private to the shim): wi_jpeg_decoder.c reads the input and the headers (memory source,
// markers, limits, buffered-image scans), wi_jpeg_decoder_output.c makes the output (rows,
// planes, and the hand-off to the scaled baseline decoder, wi_jpeg_scaled.c).
#ifndef WI_JPEG_DECODER_INTERNAL_H
#define WI_JPEG_DECODER_INTERNAL_H

#include "CJPEGShim.h"
#include "wi_jpeg_coefficients.h"
#include "wi_jpeg_error.h"
#include "wi_jpeg_scaled.h"

#include <stddef.h>

struct wi_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    wi_error_mgr err;
    struct jpeg_source_mgr src;
    struct jpeg_progress_mgr progress;
    const uint8_t *base;
    size_t count;
    int is_complete;
    int in_fake_eoi;
    size_t skip_pending;
    int truncated;
    int hit_marker_at_eof;
    int absorbing_scans;
    int max_scans;
    int completed_scans;
    JOCTET *icc;
    unsigned int icc_count;
    wi_coefficient_store coefficients;
    // Planar decoding: one row of MCUs per plane (malloc'd on first use, freed with the
    // decoder), the row pointers libjpeg writes through, and the rows handed out so far.
    uint8_t *plane_buffer[3];
    JSAMPROW plane_rows[3][2 * DCTSIZE];
    size_t plane_stride[3];
    unsigned plane_done[3];
    // The scaled baseline decoder (wi_jpeg_scaled.c): at which scales decodes may use it
    // (wi_jdec_allow_scaled_decoder), its planes when it decoded the file, and for RGBA
    // output their conversion (wi_jpeg_scaled_rgb.c) and the rows handed out so far.
    int scaled_allowed;
    int scaled_used;
    wi_scaled_job scaled;
    wi_scaled_rgb scaled_rgb;
    unsigned scaled_row;
};

static inline wi_jpeg_decoder *decoder_of(j_decompress_ptr cinfo) {
    return (wi_jpeg_decoder *)((char *)cinfo - offsetof(wi_jpeg_decoder, cinfo));
}

static inline wi_jpeg_status failure(const wi_jpeg_decoder *d) {
    return (wi_jpeg_status)d->err.status;
}

// Every wi_jdec_* entry point starts like this: a fatal error inside libjpeg lands here.
#define GUARD(d)                                   \
    if ((d)->err.failed) {                         \
        return failure(d);                         \
    }                                              \
    if (setjmp((d)->err.jump)) {                   \
        return failure(d);                         \
    }

#endif
