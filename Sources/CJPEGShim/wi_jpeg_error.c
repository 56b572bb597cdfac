#include "wi_jpeg_error.h"
#include "CJPEGShim.h"

#include <jerror.h>

// Sorts a fatal error: valid JPEG using a feature this build of libjpeg lacks, a size
// beyond libjpeg's 65500-pixel limit, or plain corruption.
static int classify(const struct jpeg_error_mgr *err) {
    switch (err->msg_code) {
    case JERR_IMAGE_TOO_BIG:
        return WI_JPEG_TOO_LARGE;
    case JERR_UNKNOWN_MARKER:
        // 0xF7 and 0xF8 are JPEG-LS's SOF55 and LSE markers.
        return (err->msg_parm.i[0] == 0xF7 || err->msg_parm.i[0] == 0xF8) ? WI_JPEG_UNSUPPORTED : WI_JPEG_ERROR;
    case JERR_EMPTY_IMAGE:        // height given by a DNL marker
    case JERR_BAD_PRECISION:      // 12- or 16-bit samples
    case JERR_SOF_UNSUPPORTED:    // lossless, hierarchical
    case JERR_NOT_COMPILED:
    case JERR_ARITH_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL: // a colour space with no RGB conversion
    case JERR_NOTIMPL:
        return WI_JPEG_UNSUPPORTED;
    default:
        return WI_JPEG_ERROR;
    }
}

static void wi_error_exit(j_common_ptr cinfo) {
    wi_error_mgr *err = (wi_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, err->message);
    err->status = classify(&err->pub);
    err->failed = 1;
    longjmp(err->jump, 1);
}

// libjpeg prints warnings to stderr by default; a library must stay quiet.
static void wi_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) {
        cinfo->err->num_warnings++;
        if (cinfo->err->msg_code == JWRN_HIT_MARKER) {
            ((wi_error_mgr *)cinfo->err)->hit_marker++;
        }
    }
}

static void wi_output_message(j_common_ptr cinfo) {
    (void)cinfo;
}

void wi_error_init(wi_error_mgr *err) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = wi_error_exit;
    err->pub.emit_message = wi_emit_message;
    err->pub.output_message = wi_output_message;
    err->message[0] = '\0';
    err->failed = 0;
    err->status = WI_JPEG_ERROR;
    err->hit_marker = 0;
}

void wi_error_fail(j_common_ptr cinfo, const char *message) {
    wi_error_mgr *err = (wi_error_mgr *)cinfo->err;
    snprintf(err->message, sizeof err->message, "%s", message);
    err->status = WI_JPEG_ERROR;
    err->failed = 1;
    longjmp(err->jump, 1);
}

/// libjpeg-turbo's version as a number (2001005 for 2.1.5): part of the proxy's
/// settings fingerprint, since another encoder version may write other bytes.
int wi_jpeg_library_version(void) {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
    return LIBJPEG_TURBO_VERSION_NUMBER;
#else
    return JPEG_LIB_VERSION;
#endif
}
