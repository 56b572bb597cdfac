#include "CPNGShim.h"

#include <libdeflate.h>
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
    /* The fast path (cpng_fast_begin): the inflated, still filtered rows, unfiltered in place
     * as cpng_fast_rows hands them out. */
    uint8_t *raw;
    size_t raw_rowbytes;
    uint32_t raw_next_row;
    int raw_channels;
    int raw_palette;
    uint8_t palette_rgba[256 * 4];
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

/* The fast path's palette as RGBA, taken before png_read_update_info, which clears the
 * info's tRNS once expansion is set. As libpng expands: entries past PLTE are black,
 * entries past tRNS opaque. */
static void cpng_capture_palette(cpng_decoder *d) {
    for (int i = 0; i < 256; i++) {
        d->palette_rgba[i * 4] = d->palette_rgba[i * 4 + 1] = d->palette_rgba[i * 4 + 2] = 0;
        d->palette_rgba[i * 4 + 3] = 0xFF;
    }
    png_colorp colors = NULL;
    int colorCount = 0;
    if (png_get_PLTE(d->png, d->info, &colors, &colorCount) != 0 && colors != NULL) {
        for (int i = 0; i < colorCount && i < 256; i++) {
            d->palette_rgba[i * 4] = colors[i].red;
            d->palette_rgba[i * 4 + 1] = colors[i].green;
            d->palette_rgba[i * 4 + 2] = colors[i].blue;
        }
    }
    png_bytep alphas = NULL;
    int alphaCount = 0;
    if (png_get_tRNS(d->png, d->info, &alphas, &alphaCount, NULL) != 0 && alphas != NULL) {
        for (int i = 0; i < alphaCount && i < 256; i++) d->palette_rgba[i * 4 + 3] = alphas[i];
    }
}

int cpng_decoder_read_header(cpng_decoder *d, cpng_info *info) {
    if (setjmp(png_jmpbuf(d->png))) return CPNG_ERROR;
    png_read_info(d->png, d->info);
    if (png_get_color_type(d->png, d->info) == PNG_COLOR_TYPE_PALETTE) cpng_capture_palette(d);
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
    free(d->raw);
    png_destroy_read_struct(&d->png, &d->info, NULL);
    free(d);
}

/* MARK: Fast path (libdeflate) for the common PNGs */

static uint32_t cpng_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

#define CPNG_TYPE_IDAT 0x49444154u
#define CPNG_TYPE_IEND 0x49454E44u
/* Bit 5 of a chunk type's first letter: lower case, the chunk is ancillary. */
#define CPNG_TYPE_ANCILLARY 0x20000000u

/* The chunk whose length field is at `offset`: 0 when it runs past the data. */
static int cpng_chunk_at(const cpng_decoder *d, size_t offset, uint32_t *type, size_t *length) {
    if (offset > d->size || d->size - offset < 12) return 0;
    const uint32_t n = cpng_be32(d->data + offset);
    if (n > 0x7FFFFFFFu || n > d->size - offset - 12) return 0;
    *type = cpng_be32(d->data + offset + 4);
    *length = n;
    return 1;
}

/* The CRC stored after the chunk's data matches its type and data (checked by cpng_chunk_at). */
static int cpng_chunk_crc_ok(const cpng_decoder *d, size_t offset, size_t length) {
    return libdeflate_crc32(0, d->data + offset + 4, length + 4) == cpng_be32(d->data + offset + 8 + length);
}

int cpng_fast_begin(cpng_decoder *d) {
    const cpng_info *h = &d->header;
    if (d->raw != NULL || d->passes != 1 || h->interlaced || h->bit_depth != 8) return CPNG_DECLINED;
    if (h->width == 0 || h->height == 0) return CPNG_DECLINED;
    int channels;
    switch (h->color_type) {
    case PNG_COLOR_TYPE_GRAY: channels = 1; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: channels = 2; break;
    case PNG_COLOR_TYPE_RGB: channels = 3; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: channels = 4; break;
    case PNG_COLOR_TYPE_PALETTE: channels = 1; break;
    default: return CPNG_DECLINED;
    }
    const int palette = h->color_type == PNG_COLOR_TYPE_PALETTE;
    /* tRNS on gray or RGB makes one colour transparent: libpng's job. */
    if (!palette && png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0) return CPNG_DECLINED;
    const size_t rowbytes = (size_t)h->width * (size_t)channels;
    if ((size_t)h->height > SIZE_MAX / (rowbytes + 1)) return CPNG_DECLINED;
    const size_t expected = (size_t)h->height * (rowbytes + 1);

    /* libpng stopped after the first IDAT's length and type. */
    if (d->offset < 8) return CPNG_DECLINED;
    const size_t first = d->offset - 8;
    size_t offset = first, length = 0, total = 0, count = 0;
    uint32_t type = 0;
    /* The IDAT run, CRCs checked as libpng checks them (a bad one is an error there). */
    while (cpng_chunk_at(d, offset, &type, &length) && type == CPNG_TYPE_IDAT) {
        if (!cpng_chunk_crc_ok(d, offset, length)) return CPNG_DECLINED;
        total += length;
        count++;
        offset += 12 + length;
    }
    if (count == 0) return CPNG_DECLINED;
    /* Then ancillary chunks with good CRCs up to an empty IEND. Anything else (a chunk past
     * the end, a bad CRC, a critical chunk) is left to libpng, which warns or fails as before. */
    for (;;) {
        if (!cpng_chunk_at(d, offset, &type, &length) || !cpng_chunk_crc_ok(d, offset, length)) return CPNG_DECLINED;
        if (type == CPNG_TYPE_IEND) {
            if (length != 0) return CPNG_DECLINED;
            break;
        }
        if ((type & CPNG_TYPE_ANCILLARY) == 0) return CPNG_DECLINED;
        offset += 12 + length;
    }

    /* One zlib stream over all IDAT payloads; joined only when there are several. */
    const uint8_t *in = d->data + first + 8;
    uint8_t *joined = NULL;
    if (count > 1) {
        joined = malloc(total > 0 ? total : 1);
        if (joined == NULL) return CPNG_DECLINED;
        size_t at = first, put = 0;
        for (size_t i = 0; i < count; i++) {
            const size_t n = cpng_be32(d->data + at);
            memcpy(joined + put, d->data + at + 8, n);
            put += n;
            at += 12 + n;
        }
        in = joined;
    }
    /* Padding: cpng_unfilter_paeth3 loads 4 bytes at the last 3-byte pixel. */
    uint8_t *raw = malloc(expected + 16);
    struct libdeflate_decompressor *z = raw != NULL ? libdeflate_alloc_decompressor() : NULL;
    /* Without an actual-size pointer libdeflate succeeds only when the stream fills exactly
     * `expected` bytes, with its Adler-32 correct. */
    const enum libdeflate_result result =
        z != NULL ? libdeflate_zlib_decompress(z, in, total, raw, expected, NULL) : LIBDEFLATE_BAD_DATA;
    if (z != NULL) libdeflate_free_decompressor(z);
    free(joined);
    if (result != LIBDEFLATE_SUCCESS) {
        free(raw);
        return CPNG_DECLINED;
    }
    /* Filter types 0-4 only; libpng reports any other as an error. */
    for (uint32_t y = 0; y < h->height; y++) {
        if (raw[(size_t)y * (rowbytes + 1)] > 4) {
            free(raw);
            return CPNG_DECLINED;
        }
    }
    d->raw = raw;
    d->raw_rowbytes = rowbytes;
    d->raw_next_row = 0;
    d->raw_channels = channels;
    d->raw_palette = palette;
    return CPNG_OK;
}

/* The Paeth predictor, branch-light (libpng's formulation; ties go a, then b, then c). */
static inline __attribute__((always_inline)) int cpng_paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    if (pb < pa) {
        pa = pb;
        a = b;
    }
    return pc < pa ? c : a;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* One pixel of `bpp` (3 or 4) bytes as 16-bit lanes, and back. */
static inline __attribute__((always_inline)) __m128i cpng_load_pixel(const uint8_t *p, const size_t bpp) {
    uint32_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

static inline __attribute__((always_inline)) void cpng_store_pixel(uint8_t *p, __m128i v, const size_t bpp) {
    const uint32_t packed = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(v, v));
    memcpy(p, &packed, bpp);
}

static inline __attribute__((always_inline)) __m128i cpng_load4(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)v), _mm_setzero_si128());
}

/* The Paeth predictor of four 16-bit lanes: a on ties, then b, then c. */
static inline __attribute__((always_inline)) __m128i cpng_paeth_sse2(__m128i a, __m128i b, __m128i c) {
    /* pa = |b - c|, pb = |a - c|, pc = |a + b - 2c|. */
    const __m128i bc = _mm_sub_epi16(b, c), ac = _mm_sub_epi16(a, c), abc = _mm_add_epi16(bc, ac);
    __m128i pa = _mm_max_epi16(bc, _mm_sub_epi16(_mm_setzero_si128(), bc));
    const __m128i pb = _mm_max_epi16(ac, _mm_sub_epi16(_mm_setzero_si128(), ac));
    const __m128i pc = _mm_max_epi16(abc, _mm_sub_epi16(_mm_setzero_si128(), abc));
    const __m128i takeB = _mm_cmplt_epi16(pb, pa);
    const __m128i predictor = _mm_or_si128(_mm_and_si128(takeB, b), _mm_andnot_si128(takeB, a));
    pa = _mm_min_epi16(pa, pb);
    const __m128i takeC = _mm_cmplt_epi16(pc, pa);
    return _mm_or_si128(_mm_and_si128(takeC, c), _mm_andnot_si128(takeC, predictor));
}

/* Paeth on 3-byte pixels with 4-byte loads and stores: the fourth lane is the next pixel's
 * first byte, read before the store overwrites it, and the last pixel stores 3 bytes. The
 * rows buffer has padding, so the last row's last load stays inside it. */
static void cpng_unfilter_paeth3(uint8_t *row, const uint8_t *prev, size_t n) {
    const __m128i low = _mm_set1_epi16(0xFF);
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128(), x = cpng_load4(row);
    for (size_t i = 0; i < n; i += 3) {
        const __m128i b = cpng_load4(prev + i);
        a = _mm_and_si128(_mm_add_epi16(x, cpng_paeth_sse2(a, b, c)), low);
        const uint32_t packed = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(a, a));
        if (i + 3 < n) {
            x = cpng_load4(row + i + 3);
            memcpy(row + i, &packed, 4);
        } else {
            memcpy(row + i, &packed, 3);
        }
        c = b;
    }
}

/* Sub, Average and Paeth for 3- and 4-byte pixels, the channels of one pixel side by side:
 * each pixel needs the one before it, so a row cannot go wider than a pixel. */
static inline __attribute__((always_inline)) void cpng_unfilter_sse2(uint8_t *row, const uint8_t *prev, size_t n,
                                                                     int filter, const size_t bpp) {
    const __m128i low = _mm_set1_epi16(0xFF);
    __m128i a = _mm_setzero_si128(), c = _mm_setzero_si128();
    size_t i;
    switch (filter) {
    case 1:
        for (i = 0; i < n; i += bpp) {
            a = _mm_and_si128(_mm_add_epi16(cpng_load_pixel(row + i, bpp), a), low);
            cpng_store_pixel(row + i, a, bpp);
        }
        break;
    case 3:
        for (i = 0; i < n; i += bpp) {
            const __m128i b = prev != NULL ? cpng_load_pixel(prev + i, bpp) : _mm_setzero_si128();
            const __m128i mean = _mm_srli_epi16(_mm_add_epi16(a, b), 1);
            a = _mm_and_si128(_mm_add_epi16(cpng_load_pixel(row + i, bpp), mean), low);
            cpng_store_pixel(row + i, a, bpp);
        }
        break;
    case 4:
        for (i = 0; i < n; i += bpp) {
            const __m128i b = cpng_load_pixel(prev + i, bpp);
            a = _mm_and_si128(_mm_add_epi16(cpng_load_pixel(row + i, bpp), cpng_paeth_sse2(a, b, c)), low);
            cpng_store_pixel(row + i, a, bpp);
            c = b;
        }
        break;
    default:
        break;
    }
}
#endif

/* Undoes one row's filter in place; `prev` is the unfiltered row above (NULL for the first).
 * Inlined with a constant `bpp`, so each pixel size gets its own loops. */
static inline __attribute__((always_inline)) void cpng_unfilter(uint8_t *row, const uint8_t *prev, size_t n,
                                                                int filter, const size_t bpp) {
    size_t i;
#if defined(__SSE2__)
    /* Sub and Average on 3-byte pixels stay scalar: the compiler's byte loops beat
     * 3-byte loads and stores. */
    if (bpp == 3 && filter == 4 && prev != NULL) {
        cpng_unfilter_paeth3(row, prev, n);
        return;
    }
    if (bpp == 4 && (filter == 1 || filter == 3 || (filter == 4 && prev != NULL))) {
        cpng_unfilter_sse2(row, prev, n, filter, bpp);
        return;
    }
#endif
    switch (filter) {
    case 1:
        for (i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        break;
    case 2:
        if (prev != NULL) for (i = 0; i < n; i++) row[i] = (uint8_t)(row[i] + prev[i]);
        break;
    case 3:
        if (prev != NULL) {
            for (i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (prev[i] >> 1));
            for (i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
        } else {
            for (i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + (row[i - bpp] >> 1));
        }
        break;
    case 4:
        if (prev != NULL) {
            for (i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + prev[i]);
            for (i = bpp; i < n; i += bpp) {
                for (size_t k = 0; k < bpp; k++) {
                    row[i + k] = (uint8_t)(row[i + k] + cpng_paeth(row[i + k - bpp], prev[i + k], prev[i + k - bpp]));
                }
            }
        } else {
            /* With a zero row above, Paeth picks the left byte: Sub. */
            for (i = bpp; i < n; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        }
        break;
    default:
        break;
    }
}

int cpng_fast_rows(cpng_decoder *d, uint8_t *rgba, size_t stride, uint32_t count) {
    if (d->raw == NULL || count > d->header.height - d->raw_next_row) {
        snprintf(d->message, CPNG_MESSAGE_SIZE, "%s", "More rows asked for than the image has");
        return CPNG_ERROR;
    }
    const size_t n = d->raw_rowbytes, width = d->header.width;
    for (uint32_t r = 0; r < count; r++, d->raw_next_row++) {
        uint8_t *filtered = d->raw + (size_t)d->raw_next_row * (n + 1);
        uint8_t *row = filtered + 1;
        const uint8_t *prev = d->raw_next_row > 0 ? row - (n + 1) : NULL;
        switch (d->raw_channels) {
        case 1: cpng_unfilter(row, prev, n, filtered[0], 1); break;
        case 2: cpng_unfilter(row, prev, n, filtered[0], 2); break;
        case 3: cpng_unfilter(row, prev, n, filtered[0], 3); break;
        default: cpng_unfilter(row, prev, n, filtered[0], 4); break;
        }
        uint8_t *out = rgba + (size_t)r * stride;
        size_t x;
        if (d->raw_palette) {
            for (x = 0; x < width; x++) memcpy(out + x * 4, d->palette_rgba + (size_t)row[x] * 4, 4);
            continue;
        }
        switch (d->raw_channels) {
        case 1:
            for (x = 0; x < width; x++) {
                out[x * 4] = out[x * 4 + 1] = out[x * 4 + 2] = row[x];
                out[x * 4 + 3] = 0xFF;
            }
            break;
        case 2:
            for (x = 0; x < width; x++) {
                out[x * 4] = out[x * 4 + 1] = out[x * 4 + 2] = row[x * 2];
                out[x * 4 + 3] = row[x * 2 + 1];
            }
            break;
        case 3:
            for (x = 0; x < width; x++) {
                out[x * 4] = row[x * 3];
                out[x * 4 + 1] = row[x * 3 + 1];
                out[x * 4 + 2] = row[x * 3 + 2];
                out[x * 4 + 3] = 0xFF;
            }
            break;
        default:
            memcpy(out, row, n);
            break;
        }
    }
    return CPNG_OK;
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
