#include "CPNGShim.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The error pointer of every png_struct made here is a CPNG_MESSAGE_SIZE buffer. */
static void cpng_on_error(png_structp png, png_const_charp message) {
    char *buffer = png_get_error_ptr(png);
    if (buffer != NULL) {
        snprintf(buffer, CPNG_MESSAGE_SIZE, "%s", message != NULL ? message : "libpng error");
    }
    png_longjmp(png, 1);
}

/* Warnings (bad ancillary chunks, benign errors) do not stop decoding. */
static void cpng_on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/* Expands every colour type and depth to 8-bit RGBA. Called with the header read. */
static void cpng_configure(png_structp png, png_infop info, cpng_info *out) {
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    out->width = width;
    out->height = height;
    out->bit_depth = depth;
    out->color_type = color;
    out->interlaced = interlace != PNG_INTERLACE_NONE;
    out->has_alpha = (color & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0;

    /* Palette to RGB, gray below 8 bits to 8, tRNS to an alpha channel. */
    png_set_expand(png);
    if (depth == 16) png_set_scale_16(png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0) png_set_gray_to_rgb(png);
    /* Only adds a channel when there is no alpha after the expansion. */
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
}

struct cpng_decoder {
    char message[CPNG_MESSAGE_SIZE];
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size;
    size_t offset;
    cpng_info header;
    int passes;
};

static void cpng_read_memory(png_structp png, png_bytep out, size_t count) {
    cpng_decoder *d = png_get_io_ptr(png);
    if (count > d->size - d->offset) png_error(png, "Unexpected end of data");
    memcpy(out, d->data + d->offset, count);
    d->offset += count;
}

cpng_decoder *cpng_decoder_create(const uint8_t *data, size_t size) {
    cpng_decoder *d = calloc(1, sizeof(cpng_decoder));
    if (d == NULL) return NULL;
    d->data = data;
    d->size = size;
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d->message, cpng_on_error, cpng_on_warning);
    if (d->png == NULL) {
        free(d);
        return NULL;
    }
    d->info = png_create_info_struct(d->png);
    if (d->info == NULL) {
        png_destroy_read_struct(&d->png, NULL, NULL);
        free(d);
        return NULL;
    }
    png_set_read_fn(d->png, d, cpng_read_memory);
    return d;
}

int cpng_decoder_read_header(cpng_decoder *d, cpng_info *info) {
    if (setjmp(png_jmpbuf(d->png))) return CPNG_ERROR;
    png_read_info(d->png, d->info);
    cpng_configure(d->png, d->info, &d->header);
    d->passes = png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);
    if (png_get_rowbytes(d->png, d->info) != (size_t)d->header.width * 4) {
        png_error(d->png, "Unexpected row size after transformations");
    }
    *info = d->header;
    return CPNG_OK;
}

int cpng_decoder_read_image(cpng_decoder *d, uint8_t *rgba, size_t stride) {
    if (setjmp(png_jmpbuf(d->png))) return CPNG_ERROR;
    /* Row by row straight into the caller's buffer; later passes refine earlier ones in place. */
    for (int pass = 0; pass < d->passes; pass++) {
        for (png_uint_32 y = 0; y < d->header.height; y++) {
            png_read_row(d->png, rgba + (size_t)y * stride, NULL);
        }
    }
    png_read_end(d->png, NULL);
    return CPNG_OK;
}

int cpng_decoder_read_rows(cpng_decoder *d, uint8_t *rgba, size_t stride, uint32_t count) {
    if (setjmp(png_jmpbuf(d->png))) return CPNG_ERROR;
    if (d->passes != 1) png_error(d->png, "Rows of an interlaced image come in passes");
    for (uint32_t y = 0; y < count; y++) {
        png_read_row(d->png, rgba + (size_t)y * stride, NULL);
    }
    return CPNG_OK;
}

int cpng_decoder_finish(cpng_decoder *d) {
    if (setjmp(png_jmpbuf(d->png))) return CPNG_ERROR;
    png_read_end(d->png, NULL);
    return CPNG_OK;
}

const char *cpng_decoder_message(const cpng_decoder *d) { return d->message; }

void cpng_decoder_destroy(cpng_decoder *d) {
    if (d == NULL) return;
    png_destroy_read_struct(&d->png, &d->info, NULL);
    free(d);
}

/* MARK: Progressive reader */

struct cpng_push {
    char message[CPNG_MESSAGE_SIZE];
    png_structp png;
    png_infop info;
    cpng_info header;
    uint8_t *rgba;
    uint32_t rows_done;
    int header_ready;
    int done;
};

/* Adam7: where each pass starts, its step, and the block each of its pixels stands for
 * until later passes fill it in. A block only covers pixels of later passes. */
static const uint32_t adam7_x0[7] = {0, 4, 0, 2, 0, 1, 0};
static const uint32_t adam7_y0[7] = {0, 0, 4, 0, 2, 0, 1};
static const uint32_t adam7_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint32_t adam7_dy[7] = {8, 8, 8, 4, 4, 2, 2};
static const uint32_t adam7_bw[7] = {8, 4, 4, 2, 2, 1, 1};
static const uint32_t adam7_bh[7] = {8, 8, 4, 4, 2, 2, 1};

static void cpng_push_on_info(png_structp png, png_infop info) {
    cpng_push *p = png_get_progressive_ptr(png);
    cpng_configure(png, info, &p->header);
    /* No interlace handling: pass rows arrive as they are and are placed here. */
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)p->header.width * 4) {
        png_error(png, "Unexpected row size after transformations");
    }
    p->header_ready = 1;
    /* Stop so the caller can check the size and allocate; keep the unread bytes. */
    png_process_data_pause(png, 1);
}

static void cpng_push_on_row(png_structp png, png_bytep row, png_uint_32 row_num, int pass) {
    cpng_push *p = png_get_progressive_ptr(png);
    if (row == NULL || p->rgba == NULL) return;
    const uint32_t width = p->header.width, height = p->header.height;
    const size_t stride = (size_t)width * 4;
    if (!p->header.interlaced) {
        if (row_num >= height) return;
        memcpy(p->rgba + (size_t)row_num * stride, row, stride);
        p->rows_done++;
        return;
    }
    if (pass < 0 || pass > 6) return;
    const uint32_t y = adam7_y0[pass] + row_num * adam7_dy[pass];
    if (y >= height) return;
    const uint32_t bh = (height - y < adam7_bh[pass]) ? height - y : adam7_bh[pass];
    uint32_t i = 0;
    for (uint32_t x = adam7_x0[pass]; x < width; x += adam7_dx[pass], i++) {
        const uint32_t bw = (width - x < adam7_bw[pass]) ? width - x : adam7_bw[pass];
        const uint8_t *src = row + (size_t)i * 4;
        for (uint32_t by = 0; by < bh; by++) {
            uint8_t *dst = p->rgba + (size_t)(y + by) * stride + (size_t)x * 4;
            for (uint32_t bx = 0; bx < bw; bx++) memcpy(dst + bx * 4, src, 4);
        }
    }
    p->rows_done++;
}

static void cpng_push_on_end(png_structp png, png_infop info) {
    (void)info;
    cpng_push *p = png_get_progressive_ptr(png);
    p->done = 1;
}

cpng_push *cpng_push_create(void) {
    cpng_push *p = calloc(1, sizeof(cpng_push));
    if (p == NULL) return NULL;
    p->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, p->message, cpng_on_error, cpng_on_warning);
    if (p->png == NULL) {
        free(p);
        return NULL;
    }
    p->info = png_create_info_struct(p->png);
    if (p->info == NULL) {
        png_destroy_read_struct(&p->png, NULL, NULL);
        free(p);
        return NULL;
    }
    png_set_progressive_read_fn(p->png, p, cpng_push_on_info, cpng_push_on_row, cpng_push_on_end);
    return p;
}

int cpng_push_feed(cpng_push *p, const uint8_t *data, size_t size) {
    if (p->done) return CPNG_DONE;
    if (setjmp(png_jmpbuf(p->png))) return CPNG_ERROR;
    const int had_header = p->header_ready;
    static const uint8_t empty[1] = {0};
    png_process_data(p->png, p->info, (png_bytep)(data != NULL ? data : empty), size);
    if (p->done) return CPNG_DONE;
    if (!had_header && p->header_ready) return CPNG_HEADER_READY;
    return CPNG_NEED_MORE;
}

void cpng_push_info(const cpng_push *p, cpng_info *info) { *info = p->header; }
void cpng_push_set_output(cpng_push *p, uint8_t *rgba) { p->rgba = rgba; }
uint32_t cpng_push_rows_done(const cpng_push *p) { return p->rows_done; }
const char *cpng_push_message(const cpng_push *p) { return p->message; }

void cpng_push_destroy(cpng_push *p) {
    if (p == NULL) return;
    png_destroy_read_struct(&p->png, &p->info, NULL);
    free(p);
}

/* MARK: Encoder */

typedef struct cpng_sink {
    uint8_t *data;
    size_t size;
    size_t capacity;
} cpng_sink;

static void cpng_write_memory(png_structp png, png_bytep bytes, size_t count) {
    cpng_sink *sink = png_get_io_ptr(png);
    if (count > sink->capacity - sink->size) {
        size_t capacity = sink->capacity < 4096 ? 4096 : sink->capacity;
        while (capacity - sink->size < count) {
            if (capacity > SIZE_MAX / 2) png_error(png, "Encoded image too large");
            capacity *= 2;
        }
        uint8_t *grown = realloc(sink->data, capacity);
        if (grown == NULL) png_error(png, "Out of memory");
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, bytes, count);
    sink->size += count;
}

static void cpng_flush_memory(png_structp png) { (void)png; }

int cpng_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int keep_alpha,
                uint8_t **out, size_t *out_size, char *message, size_t message_size) {
    char error[CPNG_MESSAGE_SIZE] = {0};
    /* On the heap: locals changed between setjmp and longjmp are indeterminate afterwards. */
    cpng_sink *sink = calloc(1, sizeof(cpng_sink));
    png_structp png = sink != NULL
        ? png_create_write_struct(PNG_LIBPNG_VER_STRING, error, cpng_on_error, cpng_on_warning)
        : NULL;
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        png_destroy_write_struct(&png, &info);
        free(sink);
        snprintf(message, message_size, "Out of memory");
        return CPNG_ERROR;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(sink->data);
        free(sink);
        snprintf(message, message_size, "%s", error);
        return CPNG_ERROR;
    }
    png_set_write_fn(png, sink, cpng_write_memory, cpng_flush_memory);
    png_set_IHDR(png, info, width, height, 8, keep_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    /* The rows stay RGBA; libpng drops the fourth byte when writing RGB. */
    if (!keep_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, rgba + (size_t)y * stride);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = sink->data;
    *out_size = sink->size;
    free(sink);
    return CPNG_OK;
}

void cpng_free(void *p) { free(p); }

uint32_t cpng_crc32(uint32_t crc, const uint8_t *data, size_t size) {
    /* zlib's crc32 takes a uInt length; feed large buffers in pieces. */
    uLong value = crc;
    while (size > 0) {
        uInt piece = size > 0x40000000u ? 0x40000000u : (uInt)size;
        value = crc32(value, data, piece);
        data += piece;
        size -= piece;
    }
    return (uint32_t)value;
}

uint8_t *cpng_inflate(const uint8_t *data, size_t size, size_t limit, size_t *out_size) {
    *out_size = 0;
    if (size > 0x40000000u || limit > 0x40000000u) return NULL;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return NULL;
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    /* One byte over the limit tells "exactly the limit" from "more than it". */
    size_t cap = limit + 1, capacity = size < 16384 ? 65536 : size * 4;
    if (capacity > cap) capacity = cap;
    uint8_t *out = malloc(capacity), *grown;
    size_t produced = 0;
    int status = Z_MEM_ERROR;
    while (out) {
        z.next_out = out + produced;
        z.avail_out = (uInt)(capacity - produced);
        status = inflate(&z, Z_NO_FLUSH);
        produced = capacity - z.avail_out;
        if (status == Z_STREAM_END || (status != Z_OK && status != Z_BUF_ERROR)) break;
        /* Room left but no progress: the input ended before the stream did. */
        if (z.avail_out != 0 || capacity == cap) { status = Z_DATA_ERROR; break; }
        capacity = capacity > cap / 2 ? cap : capacity * 2;
        grown = realloc(out, capacity);
        if (!grown) { status = Z_MEM_ERROR; break; }
        out = grown;
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END || produced > limit) {
        free(out);
        return NULL;
    }
    *out_size = produced;
    return out;
}
