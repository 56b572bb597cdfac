// The bit reader of the scaled baseline decoder (wi_jpeg_scaled.c): entropy-coded bytes
// to bits, with libjpeg-turbo's rules for stuffed zeros, fill bytes, markers and the end of
// the data, and the restart markers between intervals (wi_jpeg_scaled_reader.c).
#ifndef WI_JPEG_SCALED_READER_H
#define WI_JPEG_SCALED_READER_H

#include "wi_jpeg_scaled.h"

#include <string.h>

/// Entropy-coded bits, most significant first; zero bits are fed past a marker or the end
/// (`padding` counts them) as libjpeg-turbo does, so reading into them means the data ran
/// out. `irregular` marks 0xFF fill bytes before a stuffed 0x00, which libjpeg-turbo's
/// fast path takes for a marker: it decodes the MCU on zeros, then again properly, and
/// keeps coefficients of the first pass that the second does not overwrite.
typedef struct {
    uint64_t bits;
    int count, padding, irregular;
    const uint8_t *next, *end, *marker, *data_end;
} reader;

/// Byte by byte, for the stretches near 0xFF bytes, markers and the end.
reader wi_scaled_refill_slow(reader state);
/// Starts reading the entropy-coded bytes from `from` to `end`.
void wi_scaled_reader_start(reader *r, const uint8_t *from, const uint8_t *end);
/// After a restart interval: the data must not have run out, and the next marker must be
/// the expected RSTn (bytes before it are skipped, as libjpeg's next_marker skips them).
int wi_scaled_restart(reader state, unsigned *next_restart, reader *restarted);

/// Tops the reader up to at least 57 bits: whole 8-byte words at a time while they hold
/// no 0xFF byte.
static inline __attribute__((always_inline)) void refill(reader *r) {
    if (r->end - r->next >= 8) {
        uint64_t word;
        memcpy(&word, r->next, 8);
        uint64_t inverse = ~word; // a 0xFF byte is a zero byte here
        if (((inverse - 0x0101010101010101ull) & ~inverse & 0x8080808080808080ull) == 0) {
            word = __builtin_bswap64(word);
            int take = (64 - r->count) >> 3;
            uint64_t kept = take == 8 ? word : word >> (64 - 8 * take) << (64 - 8 * take);
            r->bits |= kept >> r->count;
            r->count += 8 * take;
            r->next += take;
            return;
        }
    }
    *r = wi_scaled_refill_slow(*r);
}

static inline __attribute__((always_inline)) void consume(reader *r, int n) {
    r->bits <<= n;
    r->count -= n;
}

/// The next `n` bits (1…16) as a signed value (JPEG's EXTEND).
static inline __attribute__((always_inline)) int receive_extend(reader *r, int n) {
    int value = (int)(r->bits >> (64 - n));
    consume(r, n);
    return value < (1 << (n - 1)) ? value - (1 << n) + 1 : value;
}

/// The next symbol, or -1 for a code not in the table. Needs 16 bits in the reader.
static inline __attribute__((always_inline)) int decode(reader *r, const wi_scaled_huffman *t) {
    uint16_t entry = t->lookup[r->bits >> (64 - WI_SCALED_LOOKUP_BITS)];
    if (entry != 0) {
        consume(r, entry >> 8);
        return entry & 0xFF;
    }
    for (int l = WI_SCALED_LOOKUP_BITS + 1; l <= 16; l++) {
        int32_t code = (int32_t)(r->bits >> (64 - l));
        if (code <= t->max_code[l]) {
            consume(r, l);
            return t->values[(code + t->value_offset[l]) & 0xFF];
        }
    }
    return -1;
}

#endif
