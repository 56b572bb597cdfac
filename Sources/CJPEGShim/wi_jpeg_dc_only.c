#include "CJPEGShim.h"

#include <string.h>

// A 1/8 DCT-scaled decode computes each output pixel of a full-resolution component
// from its block's DC coefficient alone (libjpeg's 1x1 inverse DCT; subsampled chroma
// gets a larger inverse DCT instead of upsampling, so it needs its low AC terms). A
// progressive file sends AC coefficients in scans of their own, and Huffman-decoding
// them is much of a decode's cost, so copying the file without the AC scans of its
// full-resolution components gives the same 1/8 picture for less work (decoded with
// block smoothing off: with AC terms missing, libjpeg would otherwise invent them).
// The copy is made only when the whole file parses cleanly up to EOI; anything odd
// (truncation, a non-progressive or arithmetic frame, stray markers) returns 0 and the
// caller decodes the original bytes, so libjpeg's own checks see every unusual file.

static size_t be16(const uint8_t *p) {
    return ((size_t)p[0] << 8) | p[1];
}

// The offset of the marker ending the entropy-coded data that starts at `pos`
// (an 0xFF not followed by a stuffed 0x00 or a restart marker), or `count` if none.
static size_t end_of_scan(const uint8_t *in, size_t count, size_t pos) {
    while (pos < count) {
        const uint8_t *ff = memchr(in + pos, 0xFF, count - pos);
        if (ff == NULL) {
            return count;
        }
        size_t at = (size_t)(ff - in);
        if (at + 1 >= count) {
            return count;
        }
        uint8_t next = in[at + 1];
        if (next != 0x00 && !(next >= 0xD0 && next <= 0xD7)) {
            return at;
        }
        pos = at + 2;
    }
    return count;
}

size_t wi_jpeg_copy_dc_scans(const uint8_t *in, size_t count, uint8_t *out) {
    if (in == NULL || out == NULL || count < 4 || in[0] != 0xFF || in[1] != 0xD8) {
        return 0;
    }
    memcpy(out, in, 2);
    size_t written = 2, pos = 2;
    int progressive = 0, dc_scans = 0, dropped = 0;
    // Component ids (-1: unused slot) and whether each has the largest sampling factors.
    int ids[4] = {-1, -1, -1, -1}, full_res[4] = {0, 0, 0, 0};
    for (;;) {
        if (pos >= count || in[pos] != 0xFF) {
            return 0;
        }
        while (pos < count && in[pos] == 0xFF) {
            pos++; // fill bytes before a marker
        }
        if (pos >= count) {
            return 0;
        }
        uint8_t marker = in[pos];
        size_t start = pos - 1;
        if (marker == 0xD9) {
            if (!progressive || dc_scans == 0 || !dropped) {
                return 0;
            }
            out[written++] = 0xFF;
            out[written++] = 0xD9;
            return written;
        }
        // Standalone markers (TEM, RSTn, SOI) have no business between segments here.
        if (marker == 0x00 || marker == 0x01 || marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7)) {
            return 0;
        }
        if (pos + 2 >= count) {
            return 0;
        }
        size_t length = be16(in + pos + 1);
        size_t end = pos + 1 + length;
        if (length < 2 || end > count) {
            return 0;
        }
        const uint8_t *segment = in + pos + 3;
        if (marker == 0xC2) {
            // P, Y, X, Nf, then Nf × (id, sampling, table).
            size_t count_components = length >= 8 ? segment[5] : 0;
            if (progressive || count_components < 1 || count_components > 4 || length != 8 + 3 * count_components) {
                return 0;
            }
            int max_h = 0, max_v = 0;
            for (size_t k = 0; k < count_components; k++) {
                int h = segment[7 + 3 * k] >> 4, v = segment[7 + 3 * k] & 15;
                max_h = h > max_h ? h : max_h;
                max_v = v > max_v ? v : max_v;
            }
            for (size_t k = 0; k < count_components; k++) {
                ids[k] = segment[6 + 3 * k];
                full_res[k] = (segment[7 + 3 * k] >> 4) == max_h && (segment[7 + 3 * k] & 15) == max_v;
            }
            progressive = 1;
        } else if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            return 0; // any other frame type: baseline, lossless, arithmetic
        }
        if (marker != 0xDA) {
            memcpy(out + written, in + start, end - start);
            written += end - start;
            pos = end;
            continue;
        }
        if (!progressive || length < 3) {
            return 0;
        }
        size_t components = segment[0];
        if (components < 1 || components > 4 || length != 6 + 2 * components) {
            return 0;
        }
        uint8_t spectral_start = segment[1 + 2 * components];
        uint8_t spectral_end = segment[2 + 2 * components], approximation = segment[3 + 2 * components];
        // A scan libjpeg would refuse: the caller decodes the original, which fails as it should.
        if (spectral_start > spectral_end || spectral_end > 63 || (approximation >> 4) > 13 ||
            (approximation & 15) > 13) {
            return 0;
        }
        // An AC scan is dropped when every component in it needs only its DC terms.
        int needed = spectral_start == 0;
        for (size_t k = 0; k < components && !needed; k++) {
            int id = segment[1 + 2 * k], known = 0;
            for (int slot = 0; slot < 4; slot++) {
                if (ids[slot] == id) {
                    known = 1;
                    needed = !full_res[slot];
                }
            }
            if (!known) {
                return 0;
            }
        }
        size_t scan_end = end_of_scan(in, count, end);
        if (scan_end >= count) {
            return 0;
        }
        if (needed) {
            memcpy(out + written, in + start, scan_end - start);
            written += scan_end - start;
            dc_scans += spectral_start == 0;
        } else {
            dropped = 1;
        }
        pos = scan_end;
    }
}
