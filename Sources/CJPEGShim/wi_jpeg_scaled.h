// Internal interface of the scaled baseline decoder (wi_jpeg_scaled*.c); see
// wi_jpeg_scaled.c for which JPEGs it takes and why.
#ifndef WI_JPEG_SCALED_H
#define WI_JPEG_SCALED_H

#include <stddef.h>
#include <stdint.h>

/// Bits looked up at once: for single symbols and coefficients (4 KB and 16 KB tables),
/// and for multi-symbol skips (16 KB; 12 and 14 bits measured no faster).
#define WI_SCALED_LOOKUP_BITS 12
#define WI_SCALED_SKIP_BITS 13

typedef enum {
    WI_SCALED_OK = 0,
    /// Not a file (or a scale) this decoder takes; nothing was decoded.
    WI_SCALED_DECLINED = 1,
    /// The entropy-coded data is irregular (truncated, a bad code, a restart marker out of
    /// place): libjpeg-turbo must decode it to reproduce its recovery.
    WI_SCALED_IRREGULAR = 2,
    WI_SCALED_NO_MEMORY = 3,
} wi_scaled_status;

/// A Huffman table in the forms the decoder reads it.
typedef struct {
    /// (code length << 8) | symbol for each code of at most WI_SCALED_LOOKUP_BITS bits,
    /// indexed by the next bits; 0 where no such code starts.
    uint16_t lookup[1 << WI_SCALED_LOOKUP_BITS];
    /// Largest code of each length (-1: none) and the offset of its symbols in `values`.
    int32_t max_code[18];
    int32_t value_offset[18];
    uint8_t values[256];
    /// Multi-symbol skips for AC data whose values are not needed (NULL until built):
    /// bits 0-3 the bits consumed (0: decode one symbol the slow way), bit 4 set when the
    /// last symbol is an end of block, bits 5-8 how far the last symbol moves the
    /// coefficient index, less 1, bits 9-14 how far the symbols before it move it.
    uint16_t *skip;
    /// One or two AC coefficients per lookup, where codes and extra bits fit the index and
    /// values fit 8 bits (NULL until built): bits 0-3 the bits consumed (0: the slow way),
    /// bit 4 an end of block after them, bit 5 a run of 16 zeros (alone), bits 6-7 how many
    /// coefficients, bits 8-11 and 12-15 the zeros before each, bits 16-23 and 24-31 their
    /// values.
    uint32_t *fast;
} wi_scaled_huffman;

/// One component of the scan, in the scan's order.
typedef struct {
    /// Blocks per MCU across and down (1 × 1 in a single-component scan).
    int h, v;
    /// Output samples per block side: 1, 2 or 4 (libjpeg's DCT_scaled_size).
    int scaled;
    /// Quantization values in natural order, as libjpeg's int16 multiplier table.
    int16_t quant[64];
    wi_scaled_huffman *dc, *ac;
    /// Output plane (owned by the job), `stride` bytes per row, `rows` rows.
    uint8_t *plane;
    size_t stride, rows;
} wi_scaled_component;

typedef struct {
    int count;
    wi_scaled_component component[3];
    unsigned mcus_per_row, mcu_rows;
    unsigned restart_interval;
    /// The bytes after the SOS marker, to the end of the file.
    const uint8_t *data;
    size_t size;
    /// DC tables 0-3, AC tables 4-7 (owned by the job).
    wi_scaled_huffman *tables[8];
} wi_scaled_job;

/// Builds `t` from a JPEG DHT's counts per length (bits[1...16]) and symbols; 0 when
/// libjpeg-turbo would refuse it (not a prefix code, or a DC symbol above 15).
int wi_scaled_huffman_build(wi_scaled_huffman *t, const uint8_t bits[17], const uint8_t values[256], int is_dc);
/// Adds the multi-symbol skip table to an AC table; 0 when out of memory.
int wi_scaled_huffman_build_skip(wi_scaled_huffman *t);
/// Adds the one-coefficient table to an AC table; 0 when out of memory.
int wi_scaled_huffman_build_fast(wi_scaled_huffman *t);

struct jpeg_decompress_struct;

/// Allocates the planes and decodes the scan into them.
wi_scaled_status wi_scaled_decode(wi_scaled_job *job);
void wi_scaled_job_free(wi_scaled_job *job);

/// Fills `job` (zeroed by the caller) from a libjpeg decompressor that has read the
/// header and had its output set (raw_data_out, scale_denom, jpeg_calc_output_dimensions):
/// libjpeg has parsed and checked every marker up to the first scan, and its source holds
/// the rest of the file. WI_SCALED_DECLINED for a file or scale this decoder does not take
/// or planes over `max_bytes`; nothing is decoded yet.
wi_scaled_status wi_scaled_setup(wi_scaled_job *job, const struct jpeg_decompress_struct *cinfo, size_t max_bytes);

/// RGBA output from the planes (wi_jpeg_scaled_rgb.c): how libjpeg-turbo's
/// jpeg_read_scanlines would turn them into JCS_EXT_RGBA rows at the same scale.
typedef struct {
    unsigned width, height;
    /// 1 for a grey file (R = G = B = Y).
    int gray;
    /// Chroma upsampling, as libjpeg-turbo's jinit_upsampler chooses it: factor 1 or 2 per
    /// axis, and whether the triangle (fancy) filter or replication makes the new samples.
    int h_up, v_up, fancy;
    /// Chroma's own size (downsampled_width and _height): where libjpeg's filter meets the edge.
    unsigned chroma_width, chroma_height;
    /// Two rows of chroma samples after upsampling, and one before (NULL until setup).
    uint8_t *scratch;
} wi_scaled_rgb;

/// Fills `rgb` from a decompressor whose output is set (scale, JCS_EXT_RGBA,
/// jpeg_calc_output_dimensions) and the `job` wi_scaled_setup filled from it: 1 when the
/// planes it will decode can be turned into libjpeg-turbo's rows here, 0 (nothing
/// allocated) otherwise. Decides from the headers alone, before anything is decoded.
int wi_scaled_rgb_setup(wi_scaled_rgb *rgb, const struct jpeg_decompress_struct *cinfo, const wi_scaled_job *job);
/// Writes output rows `first` ..< `first + count` (RGBA, the first at `out`, `stride`
/// bytes apart) from `job`'s decoded planes.
void wi_scaled_rgb_rows(wi_scaled_rgb *rgb, const wi_scaled_job *job, unsigned first, unsigned count,
                        uint8_t *out, size_t stride);
void wi_scaled_rgb_free(wi_scaled_rgb *rgb);

/// The IDCTs, with libjpeg-turbo's integer arithmetic (jidctred.c): dequantize the
/// coefficients (natural order) and write an n × n block at `out`.
/// The 2×2 or 4×4 (`n`) IDCT of a block whose AC coefficients are all 0: libjpeg's
/// result for it, without the passes.
void wi_scaled_idct_dc(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride, int n);
void wi_scaled_idct_1x1(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride);
void wi_scaled_idct_2x2(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride);
void wi_scaled_idct_4x4(const int16_t *coef, const int16_t *quant, uint8_t *out, size_t stride);

#endif
