// The error manager shared by the decoder and the encoder (private to the shim).
#ifndef WI_JPEG_ERROR_H
#define WI_JPEG_ERROR_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int failed;
    /// What the last fatal error means, as a wi_jpeg_status.
    int status;
    /// How many times the entropy decoder ran out of coded data ("premature end of data
    /// segment"); read-ahead alone never counts.
    int hit_marker;
} wi_error_mgr;

/// Installs the manager: fatal errors longjmp to `jump`, warnings are counted, not printed.
void wi_error_init(wi_error_mgr *err);
/// Fails with `message` (for limits the shim itself enforces) by jumping to `jump`.
void wi_error_fail(j_common_ptr cinfo, const char *message);

#endif
