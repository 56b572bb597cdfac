#ifndef CPNGSHIM_H
#define CPNGSHIM_H

#include <stddef.h>
#include <stdint.h>

/* libpng reports fatal errors with longjmp. Every setjmp and every libpng call that
 * can longjmp lives in CPNGShim.c, so a jump never crosses a Swift frame: each entry
 * point here returns a status and, on failure, a message in the decoder's buffer. */

#define CPNG_OK 0
#define CPNG_ERROR 1
/* The push reader consumed everything it was given and wants more bytes. */
#define CPNG_NEED_MORE 2
/* The push reader parsed the header and stopped: give it a pixel buffer, then feed again. */
#define CPNG_HEADER_READY 3
/* The push reader reached IEND. */
#define CPNG_DONE 4
/* The fast path does not take this image: carry on with libpng (nothing was read). */
#define CPNG_DECLINED 5

#define CPNG_MESSAGE_SIZE 256

/// Header facts of a PNG stream, valid after the header was read.
typedef struct cpng_info {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    /* An alpha channel or a tRNS chunk: some pixel may be translucent. */
    int has_alpha;
} cpng_info;

/// A one-shot decoder over a memory buffer (which must outlive it).
typedef struct cpng_decoder cpng_decoder;

/// Creates a decoder reading `size` bytes at `data`; NULL when out of memory.
cpng_decoder *cpng_decoder_create(const uint8_t *data, size_t size);
/// Reads the signature and the chunks up to the first IDAT and sets up RGBA8 output.
int cpng_decoder_read_header(cpng_decoder *d, cpng_info *info);
/// Decodes the whole image into `rgba` (height rows of `stride` bytes, at least width * 4),
/// then reads the chunks after the image data up to IEND, checking their CRCs.
int cpng_decoder_read_image(cpng_decoder *d, uint8_t *rgba, size_t stride);
/// For a non-interlaced image, instead of cpng_decoder_read_image: decodes the next `count`
/// rows into `rgba` (rows of `stride` bytes), so a caller can take the image a strip at a time.
int cpng_decoder_read_rows(cpng_decoder *d, uint8_t *rgba, size_t stride, uint32_t count);
/// After the last cpng_decoder_read_rows: reads the chunks after the image data up to IEND,
/// checking their CRCs.
int cpng_decoder_finish(cpng_decoder *d);
/// After cpng_decoder_read_header, instead of libpng's rows: takes a non-interlaced 8-bit
/// gray, gray+alpha, RGB, RGBA or palette image (no tRNS on gray or RGB) whose IDAT CRCs,
/// zlib stream (exactly height * (1 + rowbytes) bytes, Adler-32 checked), filter types and
/// trailing chunks up to IEND are all sound, inflating it at once with libdeflate.
/// CPNG_DECLINED for any other image, or any fault, leaving the decoder where it was:
/// libpng then decodes it (or reports the fault) exactly as without this path. One known
/// difference: libdeflate accepts some incomplete Huffman codes zlib rejects, so a stream whose
/// unused codes are malformed but never reached (Adler-32 still right) decodes here.
int cpng_fast_begin(cpng_decoder *d);
/// After cpng_fast_begin returned CPNG_OK: unfilters the next `count` rows into `rgba`
/// (rows of `stride` bytes) as RGBA, as libpng's transformations would.
int cpng_fast_rows(cpng_decoder *d, uint8_t *rgba, size_t stride, uint32_t count);
/// The message of the last failure (empty when none).
const char *cpng_decoder_message(const cpng_decoder *d);
void cpng_decoder_destroy(cpng_decoder *d);

/// A progressive (push) decoder fed bytes as they arrive.
typedef struct cpng_push cpng_push;

cpng_push *cpng_push_create(void);
/// Feeds `size` bytes (all are taken). After CPNG_HEADER_READY the reader holds the bytes it
/// has not parsed yet: call `cpng_push_set_output`, then feed again (zero bytes is fine).
/// Returns CPNG_NEED_MORE, CPNG_HEADER_READY, CPNG_DONE or CPNG_ERROR.
int cpng_push_feed(cpng_push *p, const uint8_t *data, size_t size);
/// Header facts; valid once CPNG_HEADER_READY was returned.
void cpng_push_info(const cpng_push *p, cpng_info *info);
/// The zero-filled RGBA buffer (height rows of width * 4 bytes) rows are written into.
/// Interlaced passes fill the blocks each pixel stands for, so early passes show a coarse image.
void cpng_push_set_output(cpng_push *p, uint8_t *rgba);
/// How many rows (of all interlace passes together) were delivered so far.
uint32_t cpng_push_rows_done(const cpng_push *p);
const char *cpng_push_message(const cpng_push *p);
void cpng_push_destroy(cpng_push *p);

/// Encodes RGBA rows as an 8-bit PNG, RGBA when `keep_alpha` is nonzero, otherwise RGB.
/// On success `*out` holds `*out_size` bytes to release with `cpng_free`.
int cpng_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int keep_alpha,
                uint8_t **out, size_t *out_size, char *message, size_t message_size);
void cpng_free(void *p);

/// The PNG chunk CRC (CRC-32 of type and data).
uint32_t cpng_crc32(uint32_t crc, const uint8_t *data, size_t size);

/// Inflates the zlib stream (RFC 1950, Adler-32 checked) of `size` bytes at `data`.
/// Returns the bytes (`*out_size` of them, to release with `cpng_free`), or NULL when the
/// stream is corrupt, truncated or would inflate to more than `limit` bytes.
uint8_t *cpng_inflate(const uint8_t *data, size_t size, size_t limit, size_t *out_size);

#endif
