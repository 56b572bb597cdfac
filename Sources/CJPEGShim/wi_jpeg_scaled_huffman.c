// Huffman tables of the scaled baseline decoder: the checks libjpeg-turbo makes
// (jdhuff.c, jpeg_make_d_derived_tbl), a one-lookup table for short codes, one that gives
// one or two AC coefficients (run and value) per lookup, and the multi-symbol table that
// skips the AC symbols of blocks whose values a 1/8 decode never reads.
#include "wi_jpeg_scaled.h"

#include <stdlib.h>
#include <string.h>

int wi_scaled_huffman_build(wi_scaled_huffman *t, const uint8_t bits[17], const uint8_t values[256], int is_dc) {
    memset(t->lookup, 0, sizeof t->lookup);
    t->skip = NULL;
    t->fast = NULL;
    int count = 0;
    for (int l = 1; l <= 16; l++) {
        count += bits[l];
    }
    if (count > 256) {
        return 0;
    }
    memcpy(t->values, values, 256);
    // Canonical codes: each length's codes follow the last one, doubled per length.
    // A table whose codes overflow their length is not a prefix code (libjpeg refuses it,
    // and so no code is ever all ones).
    int32_t code = 0;
    int p = 0;
    for (int l = 1; l <= 16; l++) {
        int n = bits[l];
        if (code + n >= (1 << l)) {
            return 0;
        }
        if (n == 0) {
            t->max_code[l] = -1;
            t->value_offset[l] = 0;
        } else {
            t->value_offset[l] = p - code;
            if (l <= WI_SCALED_LOOKUP_BITS) {
                for (int i = 0; i < n; i++) {
                    int shift = WI_SCALED_LOOKUP_BITS - l;
                    uint16_t entry = (uint16_t)((l << 8) | values[p + i]);
                    int first = (code + i) << shift;
                    for (int j = 0; j < (1 << shift); j++) {
                        t->lookup[first + j] = entry;
                    }
                }
            }
            code += n;
            p += n;
            t->max_code[l] = code - 1;
        }
        code <<= 1;
    }
    t->max_code[17] = 0x7FFFFFFF; // ends the search (the code is then refused)
    t->value_offset[17] = 0;
    if (is_dc) {
        for (int i = 0; i < count; i++) {
            if (values[i] > 15) {
                return 0;
            }
        }
    }
    return 1;
}

/// The symbol starting at the top of `bits` if its code is at most `room` bits long
/// (`*length` set), else -1.
static int symbol_within(const wi_scaled_huffman *t, uint32_t bits, int room, int *length) {
    uint16_t entry = t->lookup[bits >> (32 - WI_SCALED_LOOKUP_BITS)];
    if (entry == 0 || (entry >> 8) > room) {
        return -1;
    }
    *length = entry >> 8;
    return entry & 0xFF;
}

int wi_scaled_huffman_build_skip(wi_scaled_huffman *t) {
    if (t->skip != NULL) {
        return 1;
    }
    uint16_t *skip = malloc(sizeof(uint16_t) << WI_SCALED_SKIP_BITS);
    if (skip == NULL) {
        return 0;
    }
    // Each entry: as many whole symbols (code and extra bits) as the index's bits hold,
    // stopping after an end of block or before the index would move more than 63.
    for (uint32_t index = 0; index < (1u << WI_SCALED_SKIP_BITS); index++) {
        int used = 0, advance = 0, last_advance = 0, eob = 0, symbols = 0;
        for (;;) {
            int room = WI_SCALED_SKIP_BITS - used, length;
            uint32_t bits = (index << (32 - WI_SCALED_SKIP_BITS)) << used;
            int symbol = room > 0 ? symbol_within(t, bits, room, &length) : -1;
            if (symbol < 0) {
                break;
            }
            int size = symbol & 15, run = symbol >> 4;
            if (length + size > room || advance + last_advance > 63) {
                break;
            }
            used += length + size;
            symbols++;
            advance += last_advance;
            if (size == 0 && run != 15) {
                eob = 1;
                last_advance = 1; // unused
                break;
            }
            last_advance = size ? run + 1 : 16;
        }
        // The entry moves the index by `advance` before its last symbol and the last
        // symbol's own step after it, so a run may end exactly at the block's end.
        skip[index] = symbols == 0 ? 0
                                   : (uint16_t)(used | eob << 4 | (last_advance - 1) << 5 | advance << 9);
    }
    t->skip = skip;
    return 1;
}

/// The symbol at bit `used` of `index` with its value, if code and extra bits fit the
/// index and a value fits 8 bits: 1 (`*symbol`, `*value` set), else 0.
static int coefficient_at(const wi_scaled_huffman *t, uint32_t index, int used, int *symbol, int *value) {
    int room = WI_SCALED_LOOKUP_BITS - used, length;
    uint32_t bits = (index << (32 - WI_SCALED_LOOKUP_BITS)) << used;
    int s = room > 0 ? symbol_within(t, bits, room, &length) : -1;
    if (s < 0) {
        return 0;
    }
    int size = s & 15;
    if (length + size > room || size > 8) {
        return 0;
    }
    int v = size ? (int)((bits << length) >> (32 - size)) : 0;
    if (size && v < (1 << (size - 1))) {
        v -= (1 << size) - 1; // JPEG's EXTEND
    }
    if (v < -128 || v > 127) {
        return 0;
    }
    *symbol = s;
    *value = v;
    return length + size;
}

int wi_scaled_huffman_build_fast(wi_scaled_huffman *t) {
    if (t->fast != NULL) {
        return 1;
    }
    uint32_t *fast = malloc(sizeof(uint32_t) << WI_SCALED_LOOKUP_BITS);
    if (fast == NULL) {
        return 0;
    }
    for (uint32_t index = 0; index < (1u << WI_SCALED_LOOKUP_BITS); index++) {
        int symbol, value, used = coefficient_at(t, index, 0, &symbol, &value);
        uint32_t entry = 0;
        if (used > 0) {
            int size = symbol & 15, run = symbol >> 4;
            if (size == 0) {
                entry = (uint32_t)used | (run == 15 ? 0x20u : 0x10u); // a run of 16 zeros, or an end of block
            } else {
                entry = (uint32_t)used | 1u << 6 | (uint32_t)run << 8 | ((uint32_t)value & 0xFF) << 16;
                // A second coefficient, or an end of block, when it fits too.
                int more = coefficient_at(t, index, used, &symbol, &value);
                if (more > 0 && (symbol & 15) != 0) {
                    entry = (entry & ~15u) | (uint32_t)(used + more) | 2u << 6 | (uint32_t)(symbol >> 4) << 12 |
                            ((uint32_t)value & 0xFF) << 24;
                } else if (more > 0 && symbol >> 4 != 15) {
                    entry = (entry & ~15u) | (uint32_t)(used + more) | 0x10u;
                }
            }
        }
        fast[index] = entry;
    }
    t->fast = fast;
    return 1;
}
