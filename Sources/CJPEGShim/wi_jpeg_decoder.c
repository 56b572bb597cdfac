// Reading a JPEG: libjpeg-turbo on a memory source that suspends or fakes an EOI, the
// COM and scan-count limits, the header and its APP1/ICC markers, and buffered-image
// mode. The output side (rows, planes, the scaled decoder) is wi_jpeg_decoder_output.c.
#include "wi_jpeg_decoder_internal.h"

#include <jerror.h>
#include <stdlib.h>

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

// MARK: Memory source

static void src_init(j_decompress_ptr cinfo) {
    (void)cinfo;
}

static boolean src_fill(j_decompress_ptr cinfo) {
    wi_jpeg_decoder *d = decoder_of(cinfo);
    if (!d->is_complete) {
        return FALSE; // suspend; the unread bytes stay where they are
    }
    if (!d->in_fake_eoi) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        // Inside a scan with more than its last row of blocks to come, pixels are
        // surely missing. In the last row the Huffman decoder's read-ahead alone gets
        // here (a file that only lacks its EOI marker); wi_jdec_is_truncated then
        // also asks whether the decoder really ran short of coded data.
        if (cinfo->total_iMCU_rows > 0 && cinfo->input_iMCU_row + 1 < cinfo->total_iMCU_rows) {
            d->truncated = 1;
        }
        // A multi-scan file read in one go: the end came before EOI, so later scans
        // (or the end of this one) are missing, even if what arrived fills every row.
        if (d->absorbing_scans) {
            d->truncated = 1;
        }
        d->hit_marker_at_eof = d->err.hit_marker;
    }
    d->in_fake_eoi = 1;
    cinfo->src->next_input_byte = fake_eoi;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void src_skip(j_decompress_ptr cinfo, long num_bytes) {
    wi_jpeg_decoder *d = decoder_of(cinfo);
    struct jpeg_source_mgr *src = cinfo->src;
    if (num_bytes <= 0) {
        return;
    }
    if ((size_t)num_bytes <= src->bytes_in_buffer) {
        src->next_input_byte += num_bytes;
        src->bytes_in_buffer -= (size_t)num_bytes;
        return;
    }
    // Skipping past the data received so far: remember the rest for later input.
    d->skip_pending += (size_t)num_bytes - src->bytes_in_buffer;
    src->next_input_byte += src->bytes_in_buffer;
    src->bytes_in_buffer = 0;
    if (d->is_complete) {
        d->skip_pending = 0;
    }
}

static void src_term(j_decompress_ptr cinfo) {
    (void)cinfo;
}

static void apply_input(wi_jpeg_decoder *d, size_t offset) {
    size_t skip = d->skip_pending;
    if (skip > d->count - offset) {
        skip = d->count - offset;
    }
    d->skip_pending -= skip;
    offset += skip;
    d->src.next_input_byte = d->base + offset;
    d->src.bytes_in_buffer = d->count - offset;
}

void wi_jdec_set_input(wi_jpeg_decoder *d, const uint8_t *bytes, size_t count, int is_complete) {
    if (d->in_fake_eoi) {
        return; // the stream already ended
    }
    size_t offset = d->count - d->src.bytes_in_buffer;
    if (offset > count) {
        offset = count;
    }
    d->base = bytes;
    d->count = count;
    d->is_complete = is_complete;
    apply_input(d, offset);
    if (is_complete) {
        d->skip_pending = 0;
    }
}

// MARK: Comment marker

// libjpeg skips a COM marker whose length field is below 2 (it cannot even cover
// itself) and carries on; such a file is corrupt, so fail like other bad lengths.
static boolean skip_comment(j_decompress_ptr cinfo) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (src->bytes_in_buffer < 2) {
        // Retry the whole marker later; a lone byte is never split from its partner
        // because our source only suspends, never drops, unread bytes.
        if (src->bytes_in_buffer == 0 && !(*src->fill_input_buffer)(cinfo)) {
            return FALSE;
        }
        if (src->bytes_in_buffer < 2) {
            if (decoder_of(cinfo)->is_complete) {
                ERREXIT(cinfo, JERR_BAD_LENGTH);
            }
            return FALSE;
        }
    }
    long length = ((long)src->next_input_byte[0] << 8) | src->next_input_byte[1];
    if (length < 2) {
        ERREXIT(cinfo, JERR_BAD_LENGTH);
    }
    src->next_input_byte += 2;
    src->bytes_in_buffer -= 2;
    (*src->skip_input_data)(cinfo, length - 2);
    return TRUE;
}

// MARK: Scan limit

// A hostile progressive file can hold thousands of tiny scans, each costing a pass over
// the whole coefficient buffer; libjpeg-turbo's own tools cap them the same way.
static void check_scans(j_common_ptr cinfo) {
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    wi_jpeg_decoder *d = decoder_of(dinfo);
    if (dinfo->input_scan_number > d->max_scans) {
        char message[96];
        snprintf(message, sizeof message, "The JPEG has more than %d scans", d->max_scans);
        wi_error_fail(cinfo, message);
    }
}

// MARK: Lifecycle

wi_jpeg_decoder *wi_jdec_create(int max_scans) {
    wi_jpeg_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        return NULL;
    }
    wi_error_init(&d->err);
    d->cinfo.err = &d->err.pub;
    if (setjmp(d->err.jump)) {
        jpeg_destroy_decompress(&d->cinfo);
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    wi_coefficients_install((j_common_ptr)&d->cinfo, &d->coefficients);
    d->src.init_source = src_init;
    d->src.fill_input_buffer = src_fill;
    d->src.skip_input_data = src_skip;
    d->src.resync_to_restart = jpeg_resync_to_restart;
    d->src.term_source = src_term;
    d->cinfo.src = &d->src;
    d->progress.progress_monitor = check_scans;
    d->cinfo.progress = &d->progress;
    d->max_scans = max_scans;
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_set_marker_processor(&d->cinfo, JPEG_COM, skip_comment);
    return d;
}

void wi_jdec_destroy(wi_jpeg_decoder *d) {
    if (d == NULL) {
        return;
    }
    jpeg_destroy_decompress(&d->cinfo);
    wi_scaled_job_free(&d->scaled);
    wi_scaled_rgb_free(&d->scaled_rgb);
    free(d->icc);
    for (int i = 0; i < 3; i++) {
        free(d->plane_buffer[i]);
    }
    free(d);
}

const char *wi_jdec_message(const wi_jpeg_decoder *d) {
    return d->err.message;
}


wi_jpeg_status wi_jdec_read_header(wi_jpeg_decoder *d, wi_jpeg_header *header) {
    GUARD(d)
    int result = jpeg_read_header(&d->cinfo, TRUE);
    if (result == JPEG_SUSPENDED) {
        return WI_JPEG_SUSPENDED;
    }
    struct jpeg_decompress_struct *c = &d->cinfo;
    header->width = c->image_width;
    header->height = c->image_height;
    header->components = c->num_components;
    switch (c->jpeg_color_space) {
    case JCS_GRAYSCALE:
        header->color = WI_JPEG_COLOR_GRAY;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        header->color = WI_JPEG_COLOR_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        header->color = WI_JPEG_COLOR_CMYK;
        break;
    default:
        header->color = WI_JPEG_COLOR_OTHER;
        break;
    }
    header->has_multiple_scans = jpeg_has_multiple_scans(c);
    header->adobe_marker = c->saw_Adobe_marker;
    header->arithmetic = c->arith_code;
    return WI_JPEG_OK;
}

int wi_jdec_app1(const wi_jpeg_decoder *d, int index, const uint8_t **bytes, size_t *count) {
    int seen = 0;
    for (jpeg_saved_marker_ptr m = d->cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker != JPEG_APP0 + 1) {
            continue;
        }
        if (seen++ == index) {
            *bytes = m->data;
            *count = m->data_length;
            return 1;
        }
    }
    return 0;
}

int wi_jdec_icc_profile(wi_jpeg_decoder *d, const uint8_t **bytes, size_t *count) {
    if (d->icc == NULL) {
        if (d->err.failed || setjmp(d->err.jump)) {
            return 0;
        }
        // libjpeg-turbo joins the numbered APP2 chunks, and refuses (FALSE, a warning)
        // missing, duplicate or out-of-range sequence numbers.
        if (!jpeg_read_icc_profile(&d->cinfo, &d->icc, &d->icc_count)) {
            return 0;
        }
    }
    *bytes = d->icc;
    *count = d->icc_count;
    return 1;
}


wi_jpeg_status wi_jdec_consume(wi_jpeg_decoder *d, int *completed_scans, int *input_done) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    for (;;) {
        int result = jpeg_consume_input(c);
        if (result == JPEG_SUSPENDED) {
            break;
        }
        check_scans((j_common_ptr)c);
        if (result == JPEG_SCAN_COMPLETED || result == JPEG_REACHED_EOI) {
            d->completed_scans = c->input_scan_number;
        }
        if (result == JPEG_REACHED_EOI) {
            break;
        }
    }
    *completed_scans = d->completed_scans;
    *input_done = jpeg_input_complete(c);
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jdec_start_output(wi_jpeg_decoder *d, int scan) {
    GUARD(d)
    return jpeg_start_output(&d->cinfo, scan) ? WI_JPEG_OK : WI_JPEG_SUSPENDED;
}

wi_jpeg_status wi_jdec_finish_output(wi_jpeg_decoder *d) {
    GUARD(d)
    return jpeg_finish_output(&d->cinfo) ? WI_JPEG_OK : WI_JPEG_SUSPENDED;
}

int wi_jdec_is_truncated(const wi_jpeg_decoder *d) {
    return d->truncated || (d->in_fake_eoi && d->err.hit_marker > d->hit_marker_at_eof);
}
