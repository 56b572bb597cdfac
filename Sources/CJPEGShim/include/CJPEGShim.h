// A thin C layer over libjpeg-turbo that Swift can call safely.
//
// libjpeg reports fatal errors by calling error_exit, which by default exit()s the
// process; the usual fix, longjmp, must never cross Swift frames. Every function here
// that runs libjpeg code does its own setjmp, so a fatal error unwinds only C frames and
// comes back as a status plus libjpeg's formatted message. After an error the object
// refuses further work: destroy it.
//
// The libjpeg structures stay opaque to Swift, so Swift never imports jpeglib.h.
#ifndef CJPEGSHIM_H
#define CJPEGSHIM_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    WI_JPEG_OK = 0,
    /// The input ran out and more may come (incremental decoding only).
    WI_JPEG_SUSPENDED = 1,
    /// A fatal libjpeg error: corrupt data or a bad call; see the message.
    WI_JPEG_ERROR = 2,
    /// Valid JPEG this libjpeg cannot decode (12-bit, lossless, JPEG-LS, DNL, an unknown
    /// colour space).
    WI_JPEG_UNSUPPORTED = 3,
    /// Larger than libjpeg's 65500-pixel limit per side.
    WI_JPEG_TOO_LARGE = 4,
} wi_jpeg_status;

typedef enum {
    WI_JPEG_COLOR_GRAY = 0,
    WI_JPEG_COLOR_RGB = 1,  // YCbCr or RGB: decoded straight to RGBA
    WI_JPEG_COLOR_CMYK = 2, // CMYK or YCCK: decoded to CMYK, converted by the caller
    WI_JPEG_COLOR_OTHER = 3,
} wi_jpeg_color;

typedef struct {
    unsigned width;
    unsigned height;
    int components;
    wi_jpeg_color color;
    /// Whether the file has several scans (progressive, or non-interleaved baseline).
    int has_multiple_scans;
    /// Whether an Adobe APP14 marker was seen: its CMYK is stored inverted.
    int adobe_marker;
    /// Whether the file is arithmetic-coded; libjpeg cannot suspend inside such data,
    /// so it decodes only with complete input.
    int arithmetic;
} wi_jpeg_header;

// MARK: Decoding

typedef struct wi_jpeg_decoder wi_jpeg_decoder;

/// A new decoder that saves APP1 markers and caps progressive files at `max_scans` scans.
/// NULL when out of memory.
wi_jpeg_decoder *wi_jdec_create(int max_scans);
void wi_jdec_destroy(wi_jpeg_decoder *d);
/// libjpeg's message for the last error (empty when none).
const char *wi_jdec_message(const wi_jpeg_decoder *d);

/// Points the decoder at all bytes received so far. `bytes` must stay valid until the
/// next libjpeg call returns; each call's bytes must start with the previous call's.
/// When `is_complete` is 0 and the bytes run out, calls return WI_JPEG_SUSPENDED; when 1,
/// a fake EOI marker is inserted (libjpeg's usual recovery) so a short file decodes what
/// it has and never waits.
void wi_jdec_set_input(wi_jpeg_decoder *d, const uint8_t *bytes, size_t count, int is_complete);

wi_jpeg_status wi_jdec_read_header(wi_jpeg_decoder *d, wi_jpeg_header *header);
/// The `index`th saved APP1 payload; 0 when there is none.
int wi_jdec_app1(const wi_jpeg_decoder *d, int index, const uint8_t **bytes, size_t *count);
/// The ICC profile of the APP2 "ICC_PROFILE" chunks, joined in sequence order; 0 when
/// there is none or its chunks are inconsistent. Call after wi_jdec_read_header;
/// `*bytes` stays valid until wi_jdec_destroy.
int wi_jdec_icc_profile(wi_jpeg_decoder *d, const uint8_t **bytes, size_t *count);

/// Chooses RGBA (or CMYK) output, DCT scaling by 1/`scale_denom` and buffered-image mode,
/// then reports the output size.
wi_jpeg_status wi_jdec_configure(wi_jpeg_decoder *d, unsigned scale_denom, int buffered,
                                 unsigned *out_width, unsigned *out_height);
wi_jpeg_status wi_jdec_start(wi_jpeg_decoder *d);
/// Turns libjpeg's block smoothing (guessing missing AC terms of progressive files) off;
/// call after wi_jdec_configure.
void wi_jdec_disable_block_smoothing(wi_jpeg_decoder *d);
/// Reads rows into `base` (row r at base + r * stride) until the last row or suspension,
/// or, with complete input, until the data is found truncated (wi_jdec_is_truncated).
/// `*scanline` is the number of rows done so far in this output pass.
wi_jpeg_status wi_jdec_read_rows(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned *scanline);
/// Like wi_jdec_read_rows but stops after `max_rows` rows, written from `base` on (the
/// first at `base`, whatever the output scanline): for decoding a strip at a time.
/// `*rows` is the number written by this call.
wi_jpeg_status wi_jdec_read_strip(wi_jpeg_decoder *d, uint8_t *base, size_t stride, unsigned max_rows,
                                  unsigned *rows);
wi_jpeg_status wi_jdec_finish(wi_jpeg_decoder *d);

// Planar (raw YCbCr) decoding: the samples as stored, no colour conversion or upsampling.

/// One component plane of a planar decode or encode.
typedef struct {
    /// Samples per row and rows in the image (libjpeg's downsampled size, rounded up).
    unsigned width;
    unsigned height;
    /// How much of the image the plane covers, in its own samples: the rounded-up sizes
    /// above stand for a last column and row that may cover less than a whole sample.
    double extent_width;
    double extent_height;
} wi_jpeg_plane;

/// 1 when the header describes what wi_jdec_configure_planes decodes: three components,
/// YCbCr, chroma sampled once per MCU and luma once or twice per axis (4:4:4, 4:2:2,
/// 4:4:0, 4:2:0).
int wi_jdec_has_planes(const wi_jpeg_decoder *d);
/// Chooses raw YCbCr output (Y, Cb, Cr planes) with DCT scaling by 1/`scale_denom`, and
/// reports each plane. At a reduced scale libjpeg decodes chroma with a larger IDCT rather
/// than upsampling it, so chroma planes can be as large as luma's.
wi_jpeg_status wi_jdec_configure_planes(wi_jpeg_decoder *d, unsigned scale_denom, wi_jpeg_plane planes[3]);
/// After wi_jdec_start: decodes the next row of MCUs into the decoder's own buffers and
/// points `rows[i]` at plane i's first new row (`strides[i]` bytes apart), `counts[i]` rows
/// of it (0 once the plane is complete). Returns WI_JPEG_OK with all counts 0 at the end,
/// or early when complete input turns out truncated (wi_jdec_is_truncated).
wi_jpeg_status wi_jdec_read_planes(wi_jpeg_decoder *d, const uint8_t *rows[3], size_t strides[3],
                                   unsigned counts[3]);

/// Lets wi_jdec_start hand a planar or RGBA decode of complete input to WebImage's scaled
/// baseline decoder (wi_jpeg_scaled.c): the same planes as libjpeg-turbo's, byte for byte,
/// without working out the coefficients the reduced IDCTs never read, and for RGBA output
/// libjpeg-turbo's rows made from them (wi_jpeg_scaled_rgb.c). `mode` 0: never (the
/// default); 1: where it is faster than libjpeg-turbo, at 1/8 from a megapixel up;
/// 2: at 1/4 and 1/8 whatever the size (for comparisons: at 1/4 it is still slower than
/// libjpeg-turbo, whose Huffman decoding of the coefficients a 2×2 IDCT reads is faster). Files it does not take
/// (progressive, arithmetic, 12-bit, CMYK, RGB-coded, other samplings) and data it finds
/// irregular (truncated, corrupt) go to libjpeg-turbo.
void wi_jdec_allow_scaled_decoder(wi_jpeg_decoder *d, int mode);
/// 1 when wi_jdec_start gave the decode to the scaled decoder.
int wi_jdec_used_scaled_decoder(const wi_jpeg_decoder *d);
/// How many decodes the scaled decoder has made in this process (all decoders, all
/// threads): what lets the tools show, and their tests check, that it is in use.
unsigned long wi_jpeg_scaled_decode_count(void);

// Buffered-image mode (progressive incremental decoding).

/// Consumes the input received so far. `*completed_scans` counts the scans whose data
/// fully arrived; `*input_done` is 1 once the EOI marker was read.
wi_jpeg_status wi_jdec_consume(wi_jpeg_decoder *d, int *completed_scans, int *input_done);
wi_jpeg_status wi_jdec_start_output(wi_jpeg_decoder *d, int scan);
wi_jpeg_status wi_jdec_finish_output(wi_jpeg_decoder *d);

/// Whether the input ended inside a scan's coded data before its last row of blocks,
/// so that part of the image is missing (libjpeg paints it grey).
int wi_jdec_is_truncated(const wi_jpeg_decoder *d);

/// Copies a complete progressive Huffman JPEG of `count` bytes to `out` (room for
/// `count` bytes) without the scans a decode at 1/`scale_denom` (8 or 4) can do without:
/// at 1/8 the AC scans of components decoded as block means (exact), at 1/4 the AC
/// refinement scans of components decoded with a 2×2 IDCT (close; see the source). Decode
/// the copy with block smoothing off. Returns the copy's length, or 0 (nothing usable
/// written) when `in` is not such a file, has no such scan, does not parse cleanly to its
/// EOI marker, or would be smoothed by libjpeg when decoded whole.
size_t wi_jpeg_filter_scans(const uint8_t *in, size_t count, unsigned scale_denom, uint8_t *out);

// MARK: Encoding

typedef struct wi_jpeg_encoder wi_jpeg_encoder;

wi_jpeg_encoder *wi_jenc_create(void);
void wi_jenc_destroy(wi_jpeg_encoder *e);
const char *wi_jenc_message(const wi_jpeg_encoder *e);
/// Starts a YCbCr JPEG of `width` × `height` at `quality` 0…100, written to memory:
/// progressive when `progressive` is 1 (else baseline), with Huffman tables computed for
/// the image when `optimize` is 1 (progressive files always are). Rows are RGBA (alpha
/// ignored) when `input_rgba` is 1, else RGB.
wi_jpeg_status wi_jenc_start(wi_jpeg_encoder *e, unsigned width, unsigned height, int quality,
                             int input_rgba, int progressive, int optimize);
wi_jpeg_status wi_jenc_write_rows(wi_jpeg_encoder *e, const uint8_t *base, size_t stride, unsigned count);
/// Starts a 4:2:0 YCbCr JPEG like wi_jenc_start whose samples come as planes
/// (wi_jenc_write_planes): no colour conversion or chroma downsampling. Plane 0 is
/// `width` × `height`, planes 1 and 2 half that, rounded up.
wi_jpeg_status wi_jenc_start_planes(wi_jpeg_encoder *e, unsigned width, unsigned height, int quality,
                                    int progressive, int optimize);
/// Writes the whole image from its three planes (plane i's rows `strides[i]` bytes apart,
/// its size as wi_jenc_start_planes says), padding each block row by repeating the last
/// column and row as libjpeg's own downsampler does.
wi_jpeg_status wi_jenc_write_planes(wi_jpeg_encoder *e, const uint8_t *const planes[3], const size_t strides[3]);
/// Finishes the file; `*bytes` stays valid until wi_jenc_destroy.
wi_jpeg_status wi_jenc_finish(wi_jpeg_encoder *e, const uint8_t **bytes, size_t *count);

/// libjpeg-turbo's version number (2001005 for 2.1.5).
int wi_jpeg_library_version(void);

#endif
