#include "CJPEGShim.h"
#include "wi_jpeg_coefficients.h"
#include "wi_jpeg_error.h"
#include "wi_jpeg_scaled.h"

#include <jerror.h>
#include <stdlib.h>

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

/// Planes the scaled decoder may allocate for one file (at most 1/16 of the pixels a
/// decode at 1/4 covers, so 268 MB for libjpeg's largest 65500 × 65500 image).
static const size_t scaled_max_bytes = (size_t)1 << 28;

static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static wi_jpeg_decoder *decoder_of(j_decompress_ptr cinfo) {
    return (wi_jpeg_decoder *)((char *)cinfo - offsetof(wi_jpeg_decoder, cinfo));
}

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

static wi_jpeg_status failure(const wi_jpeg_decoder *d) {
    return (wi_jpeg_status)d->err.status;
}

// Every entry point below starts like this: a fatal error inside libjpeg lands here.
#define GUARD(d)                                   \
    if ((d)->err.failed) {                         \
        return failure(d);                         \
    }                                              \
    if (setjmp((d)->err.jump)) {                   \
        return failure(d);                         \
    }

// MARK: Header

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

// MARK: Decompression

wi_jpeg_status wi_jdec_configure(wi_jpeg_decoder *d, unsigned scale_denom, int buffered,
                                 unsigned *out_width, unsigned *out_height) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    c->out_color_space = (c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK)
                             ? JCS_CMYK
                             : JCS_EXT_RGBA;
    c->scale_num = 1;
    c->scale_denom = scale_denom;
    c->buffered_image = buffered ? TRUE : FALSE;
    jpeg_calc_output_dimensions(c);
    *out_width = c->output_width;
    *out_height = c->output_height;
    return WI_JPEG_OK;
}

void wi_jdec_disable_block_smoothing(wi_jpeg_decoder *d) {
    d->cinfo.do_block_smoothing = FALSE;
}

// A planar or RGBA decode at 1/4 or 1/8 of complete input goes to the scaled decoder
// first; a file it declines (for RGBA output also one whose rows wi_jpeg_scaled_rgb.c
// cannot make as libjpeg would), or whose data it finds irregular, goes on to libjpeg as
// if it had not looked (it reads the source's bytes without moving libjpeg's position).
static int decode_scaled(wi_jpeg_decoder *d) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    // Where it pays (mode 1): at 1/8 and from a megapixel up, since building its tables
    // costs ~70 µs (a 128 × 128 file decodes 2.8× slower than with libjpeg-turbo).
    int pays = c->scale_denom == 8 && (uint64_t)c->image_width * c->image_height >= 1000000;
    if (d->scaled_allowed == 0 || (d->scaled_allowed == 1 && !pays) || c->buffered_image ||
        (c->raw_data_out && c->num_components != 3) || !d->is_complete || d->in_fake_eoi) {
        return 0;
    }
    if (wi_scaled_setup(&d->scaled, c, scaled_max_bytes) == WI_SCALED_OK &&
        (c->raw_data_out || wi_scaled_rgb_setup(&d->scaled_rgb, c, &d->scaled)) &&
        wi_scaled_decode(&d->scaled) == WI_SCALED_OK) {
        return 1;
    }
    wi_scaled_job_free(&d->scaled);
    wi_scaled_rgb_free(&d->scaled_rgb);
    return 0;
}

wi_jpeg_status wi_jdec_start(wi_jpeg_decoder *d) {
    GUARD(d)
    if (!d->scaled_used && decode_scaled(d)) {
        d->scaled_used = 1;
        return WI_JPEG_OK;
    }
    // Outside buffered-image mode, starting a multi-scan file reads all its scans.
    d->absorbing_scans = jpeg_has_multiple_scans(&d->cinfo) && !d->cinfo.buffered_image;
    boolean started = jpeg_start_decompress(&d->cinfo);
    d->absorbing_scans = 0;
    return started ? WI_JPEG_OK : WI_JPEG_SUSPENDED;
}

// RGBA rows from the scaled decoder's planes: up to `max_rows` of the rest, the first at
// `base`; how many.
static unsigned scaled_rows(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned max_rows) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (c->raw_data_out) {
        wi_error_fail((j_common_ptr)c, "The decoder was configured for planes, not rows");
    }
    unsigned left = c->output_height - d->scaled_row, n = max_rows < left ? max_rows : left;
    wi_scaled_rgb_rows(&d->scaled_rgb, &d->scaled, d->scaled_row, n, base, stride);
    d->scaled_row += n;
    return n;
}

wi_jpeg_status wi_jdec_read_rows(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned *scanline) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->scaled_used) {
        scaled_rows(d, base + (size_t)d->scaled_row * stride, stride, c->output_height);
        *scanline = d->scaled_row;
        return WI_JPEG_OK;
    }
    wi_jpeg_status status = WI_JPEG_OK;
    while (c->output_scanline < c->output_height) {
        JSAMPROW rows[8];
        unsigned n = c->output_height - c->output_scanline;
        if (n > 8) {
            n = 8;
        }
        for (unsigned i = 0; i < n; i++) {
            rows[i] = base + (size_t)(c->output_scanline + i) * stride;
        }
        if (jpeg_read_scanlines(c, rows, n) == 0) {
            status = WI_JPEG_SUSPENDED;
            break;
        }
        if (d->is_complete && wi_jdec_is_truncated(d)) {
            break; // the caller rejects truncated data: don't paint the grey rest
        }
    }
    *scanline = c->output_scanline;
    return status;
}

wi_jpeg_status wi_jdec_read_strip(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned max_rows,
                                  unsigned *rows) {
    *rows = 0;
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->scaled_used) {
        *rows = scaled_rows(d, base, stride, max_rows);
        return WI_JPEG_OK;
    }
    unsigned done = 0;
    while (done < max_rows && c->output_scanline < c->output_height) {
        JSAMPROW pointers[16];
        unsigned n = max_rows - done;
        if (n > 16) {
            n = 16;
        }
        for (unsigned i = 0; i < n; i++) {
            pointers[i] = base + (size_t)(done + i) * stride;
        }
        JDIMENSION got = jpeg_read_scanlines(c, pointers, n);
        if (got == 0) {
            *rows = done;
            return WI_JPEG_SUSPENDED;
        }
        done += got;
        if (d->is_complete && wi_jdec_is_truncated(d)) {
            break;
        }
    }
    *rows = done;
    return WI_JPEG_OK;
}

wi_jpeg_status wi_jdec_finish(wi_jpeg_decoder *d) {
    GUARD(d)
    if (d->scaled_used) {
        return WI_JPEG_OK; // libjpeg never started
    }
    return jpeg_finish_decompress(&d->cinfo) ? WI_JPEG_OK : WI_JPEG_SUSPENDED;
}

// MARK: Planar decoding

int wi_jdec_has_planes(const wi_jpeg_decoder *d) {
    const struct jpeg_decompress_struct *c = &d->cinfo;
    if (d->err.failed || c->num_components != 3 || c->jpeg_color_space != JCS_YCbCr) {
        return 0;
    }
    const jpeg_component_info *y = &c->comp_info[0];
    for (int i = 1; i < 3; i++) {
        if (c->comp_info[i].h_samp_factor != 1 || c->comp_info[i].v_samp_factor != 1) {
            return 0;
        }
    }
    return y->h_samp_factor >= 1 && y->h_samp_factor <= 2 && y->v_samp_factor >= 1 && y->v_samp_factor <= 2;
}

wi_jpeg_status wi_jdec_configure_planes(wi_jpeg_decoder *d, unsigned scale_denom, wi_jpeg_plane planes[3]) {
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (!wi_jdec_has_planes(d)) {
        wi_error_fail((j_common_ptr)c, "The JPEG is not 3-component YCbCr with 1x1 chroma");
    }
    c->raw_data_out = TRUE;
    c->out_color_space = JCS_YCbCr;
    c->scale_num = 1;
    c->scale_denom = scale_denom;
    c->buffered_image = FALSE;
    jpeg_calc_output_dimensions(c);
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        planes[i].width = p->downsampled_width;
        planes[i].height = p->downsampled_height;
        // downsampled_width is this, rounded up (jdmaster.c).
        double h = (double)(p->h_samp_factor * p->DCT_scaled_size) / (double)(c->max_h_samp_factor * DCTSIZE);
        double v = (double)(p->v_samp_factor * p->DCT_scaled_size) / (double)(c->max_v_samp_factor * DCTSIZE);
        planes[i].extent_width = (double)c->image_width * h;
        planes[i].extent_height = (double)c->image_height * v;
    }
    return WI_JPEG_OK;
}

// A row of MCUs for every plane: v_samp × DCT_scaled_size rows of whole blocks each.
static void allocate_planes(wi_jpeg_decoder *d) {
    struct jpeg_decompress_struct *c = &d->cinfo;
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        int rows = p->v_samp_factor * p->DCT_scaled_size;
        // Whole MCUs: libjpeg may write the blocks that pad the last MCU of a row.
        size_t stride = ((size_t)p->width_in_blocks + (size_t)p->h_samp_factor) * (size_t)p->DCT_scaled_size;
        d->plane_buffer[i] = malloc(stride * (size_t)rows);
        if (d->plane_buffer[i] == NULL) {
            wi_error_fail((j_common_ptr)c, "Out of memory for a row of planar samples");
        }
        d->plane_stride[i] = stride;
        for (int r = 0; r < rows; r++) {
            d->plane_rows[i][r] = d->plane_buffer[i] + (size_t)r * stride;
        }
    }
}

wi_jpeg_status wi_jdec_read_planes(wi_jpeg_decoder *d, const uint8_t *rows[3], size_t strides[3],
                                   unsigned counts[3]) {
    for (int i = 0; i < 3; i++) {
        counts[i] = 0;
    }
    GUARD(d)
    struct jpeg_decompress_struct *c = &d->cinfo;
    if (!c->raw_data_out) {
        wi_error_fail((j_common_ptr)c, "The decoder was not configured for planes");
    }
    if (d->scaled_used) {
        // The rows libjpeg would hand out: a row of MCUs per call.
        for (int i = 0; i < 3; i++) {
            const jpeg_component_info *p = &c->comp_info[i];
            const wi_scaled_component *plane = &d->scaled.component[i];
            unsigned made = (unsigned)(p->v_samp_factor * p->DCT_scaled_size);
            unsigned left = p->downsampled_height - d->plane_done[i];
            counts[i] = made < left ? made : left;
            rows[i] = plane->plane + (size_t)d->plane_done[i] * plane->stride;
            strides[i] = plane->stride;
            d->plane_done[i] += counts[i];
        }
        return WI_JPEG_OK;
    }
    if (c->output_scanline >= c->output_height) {
        return WI_JPEG_OK;
    }
    if (d->plane_buffer[0] == NULL) {
        allocate_planes(d);
    }
    JSAMPARRAY data[3] = {d->plane_rows[0], d->plane_rows[1], d->plane_rows[2]};
    JDIMENSION lines = (JDIMENSION)(c->max_v_samp_factor * c->min_DCT_scaled_size);
    if (jpeg_read_raw_data(c, data, lines) == 0) {
        return WI_JPEG_SUSPENDED;
    }
    for (int i = 0; i < 3; i++) {
        const jpeg_component_info *p = &c->comp_info[i];
        unsigned made = (unsigned)(p->v_samp_factor * p->DCT_scaled_size);
        unsigned left = p->downsampled_height - d->plane_done[i];
        counts[i] = made < left ? made : left;
        d->plane_done[i] += counts[i];
        rows[i] = d->plane_buffer[i];
        strides[i] = d->plane_stride[i];
    }
    return WI_JPEG_OK;
}

// MARK: Buffered-image mode

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

void wi_jdec_allow_scaled_decoder(wi_jpeg_decoder *d, int mode) {
    d->scaled_allowed = mode;
}

int wi_jdec_used_scaled_decoder(const wi_jpeg_decoder *d) {
    return d->scaled_used;
}

int wi_jdec_is_truncated(const wi_jpeg_decoder *d) {
    return d->truncated || (d->in_fake_eoi && d->err.hit_marker > d->hit_marker_at_eof);
}
