#include "CJPEGShim.h"

#include <string.h>

// A DCT-scaled decode of a progressive JPEG still entropy-decodes every scan (libjpeg
// buffers all coefficients of the whole image before any output), and that is most of its
// cost. At reduced scale most coefficients barely matter, so this copies the file without
// the scans a scaled decode can do without; the caller decodes the copy with block
// smoothing off (with AC terms missing, libjpeg would otherwise invent them).
//
// Per component, libjpeg-turbo's inverse DCT size at scale 1/8 or 1/4 decides:
// - size 1 (1/8, full-resolution components): the output is the block mean, the DC term
//   alone, so every AC scan goes. Exact: the pixels equal a full 1/8 decode's.
// - size 2 at 1/4, for the luma (first) component: each output pixel is a 4×4 block mean,
//   and the thumbnail made from it shrinks at least 2× more, so one output pixel is about one
//   8×8 block. What survives of the block's detail is its slope, the AC terms (0,1), (1,0)
//   and (1,1) (zig-zag 1, 2 and 4); higher terms only alias into the 2×2 output. So the
//   refinement scans (Ah > 0) go, and so do the first passes of bands starting after zig-zag
//   4, provided the first passes leave zig-zag 1, 2 and 4 known to within 2 bits (Al <= 2).
//   On a 12 MP photo fitted to 300 or 500 px this costs 0.1-0.4 dB against a full-decode
//   Lanczos reference (still above libvips' full decode), and leaves a quarter of the bytes
//   of libjpeg's standard script. Chroma keeps every scan: its errors grow by up to 1.8 in
//   RGB, and its scans are small.
// Everything else keeps every scan.
//
// A refinement depends on the earlier scans of its band, so a first pass is only dropped
// together with every refinement of its component; first passes never depend on each other.
// The copy is made only when the whole file parses cleanly up to EOI and its full decode would
// not be smoothed either (every component has its DC and zig-zag terms 1–9 complete, as
// libjpeg checks); anything else (truncation, a non-progressive or arithmetic frame, stray
// markers, an odd script) returns 0 and the caller decodes the original bytes, so libjpeg's
// own checks see every unusual file.

enum { MAX_COMPONENTS = 4, MAX_AL_KEPT = 2, LAST_SLOPE_TERM = 4 };

typedef struct {
    unsigned scale_denom;
    int count;
    int ids[MAX_COMPONENTS];
    int idct_size[MAX_COMPONENTS];
    // The last Al each coefficient was sent with (-1: never), over the whole file.
    int coef_bits[MAX_COMPONENTS][64];
    // The Al of each AC coefficient's first pass (-1: never sent).
    int first_al[MAX_COMPONENTS][64];
} scan_plan;

typedef struct {
    uint8_t marker;
    size_t start; // the 0xFF of the marker
    size_t end;   // past the segment, and past the entropy-coded data for SOS
    const uint8_t *payload;
    size_t length; // the segment's length field
} segment;

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

// Reads the segment at `*pos` (after SOI); 1 on success, 0 when the bytes are not a clean
// sequence of segments. EOI is returned as a segment with no payload.
static int next_segment(const uint8_t *in, size_t count, size_t *pos, segment *seg) {
    size_t p = *pos;
    if (p >= count || in[p] != 0xFF) {
        return 0;
    }
    while (p < count && in[p] == 0xFF) {
        p++; // fill bytes before a marker
    }
    if (p >= count) {
        return 0;
    }
    seg->marker = in[p];
    seg->start = p - 1;
    if (seg->marker == 0xD9) {
        seg->end = p + 1;
        seg->payload = NULL;
        seg->length = 0;
        *pos = seg->end;
        return 1;
    }
    // Standalone markers (TEM, RSTn, SOI) have no business between segments here.
    if (seg->marker == 0x00 || seg->marker == 0x01 || seg->marker == 0xD8 || (seg->marker >= 0xD0 && seg->marker <= 0xD7)) {
        return 0;
    }
    if (p + 2 >= count) {
        return 0;
    }
    seg->length = be16(in + p + 1);
    seg->end = p + 1 + seg->length;
    if (seg->length < 2 || seg->end > count) {
        return 0;
    }
    seg->payload = in + p + 3;
    if (seg->marker == 0xDA) {
        seg->end = end_of_scan(in, count, seg->end);
        if (seg->end >= count) {
            return 0;
        }
    }
    *pos = seg->end;
    return 1;
}

// libjpeg-turbo's inverse DCT size for each component at 1/scale_denom: full-resolution
// components get 8/scale_denom; a subsampled one doubles it while its sampling allows
// (it is upsampled in the IDCT instead of afterwards).
static int read_frame(const segment *seg, unsigned scale_denom, scan_plan *plan) {
    size_t n = seg->length >= 8 ? seg->payload[5] : 0;
    if (n < 1 || n > MAX_COMPONENTS || seg->length != 8 + 3 * n) {
        return 0;
    }
    int max_h = 0, max_v = 0, smallest = 8 / (int)scale_denom;
    for (size_t k = 0; k < n; k++) {
        int h = seg->payload[7 + 3 * k] >> 4, v = seg->payload[7 + 3 * k] & 15;
        if (h < 1 || v < 1) {
            return 0;
        }
        max_h = h > max_h ? h : max_h;
        max_v = v > max_v ? v : max_v;
    }
    plan->count = (int)n;
    for (size_t k = 0; k < n; k++) {
        int h = seg->payload[7 + 3 * k] >> 4, v = seg->payload[7 + 3 * k] & 15, size = smallest;
        while (size < 8 && (max_h * smallest) % (h * size * 2) == 0 && (max_v * smallest) % (v * size * 2) == 0) {
            size *= 2;
        }
        plan->ids[k] = seg->payload[6 + 3 * k];
        plan->idct_size[k] = size;
        for (int z = 0; z < 64; z++) {
            plan->coef_bits[k][z] = -1;
            plan->first_al[k][z] = -1;
        }
    }
    return 1;
}

static int component_slot(const scan_plan *plan, int id) {
    for (int slot = 0; slot < plan->count; slot++) {
        if (plan->ids[slot] == id) {
            return slot;
        }
    }
    return -1;
}

// Reads an SOS header into its parts; 0 when libjpeg would refuse it.
static int read_scan(const segment *seg, const scan_plan *plan, int slots[MAX_COMPONENTS], int *components,
                     int *ss, int *se, int *ah, int *al) {
    if (seg->length < 3) {
        return 0;
    }
    int n = seg->payload[0];
    if (n < 1 || n > MAX_COMPONENTS || seg->length != 6 + 2 * (size_t)n) {
        return 0;
    }
    for (int k = 0; k < n; k++) {
        slots[k] = component_slot(plan, seg->payload[1 + 2 * k]);
        if (slots[k] < 0) {
            return 0;
        }
    }
    *components = n;
    *ss = seg->payload[1 + 2 * n];
    *se = seg->payload[2 + 2 * n];
    *ah = seg->payload[3 + 2 * n] >> 4;
    *al = seg->payload[3 + 2 * n] & 15;
    // AC scans hold one component; bands and bit positions stay in range.
    return *ss <= *se && *se <= 63 && *ah <= 13 && *al <= 13 && (*ss == 0 || n == 1);
}

// Whether the luma component's slope terms (zig-zag 1, 2 and 4) arrive in first passes
// within MAX_AL_KEPT bits, so that its 2×2-IDCT scans beyond them can go at 1/4.
static int slope_is_early(const scan_plan *plan) {
    static const int slope[] = {1, 2, LAST_SLOPE_TERM};
    for (int k = 0; k < 3; k++) {
        int al = plan->first_al[0][slope[k]];
        if (al < 0 || al > MAX_AL_KEPT) {
            return 0;
        }
    }
    return 1;
}

// Whether the component in `slot` can do without this AC scan at the plan's scale.
static int droppable(const scan_plan *plan, int slot, int ss, int ah) {
    if (plan->idct_size[slot] == 1) {
        return 1;
    }
    if (plan->idct_size[slot] != 2 || plan->scale_denom != 4 || slot != 0 || !slope_is_early(plan)) {
        return 0;
    }
    return ah > 0 || ss > LAST_SLOPE_TERM;
}

size_t wi_jpeg_filter_scans(const uint8_t *in, size_t count, unsigned scale_denom, uint8_t *out) {
    if (in == NULL || out == NULL || count < 4 || in[0] != 0xFF || in[1] != 0xD8 ||
        (scale_denom != 4 && scale_denom != 8)) {
        return 0;
    }
    // First pass: the frame, and what every scan sends.
    scan_plan plan;
    plan.scale_denom = scale_denom;
    plan.count = 0;
    segment seg;
    size_t pos = 2;
    int slots[MAX_COMPONENTS], components, ss, se, ah, al;
    for (;;) {
        if (!next_segment(in, count, &pos, &seg)) {
            return 0;
        }
        if (seg.marker == 0xD9) {
            break;
        }
        if (seg.marker == 0xC2) {
            if (plan.count != 0 || !read_frame(&seg, scale_denom, &plan)) {
                return 0;
            }
        } else if (seg.marker >= 0xC0 && seg.marker <= 0xCF && seg.marker != 0xC4 && seg.marker != 0xC8 &&
                   seg.marker != 0xCC) {
            return 0; // any other frame type: baseline, lossless, arithmetic
        } else if (seg.marker == 0xDA) {
            if (plan.count == 0 || !read_scan(&seg, &plan, slots, &components, &ss, &se, &ah, &al)) {
                return 0;
            }
            for (int k = 0; k < components; k++) {
                for (int z = ss; z <= se; z++) {
                    plan.coef_bits[slots[k]][z] = al;
                    if (ah == 0 && z > 0) {
                        plan.first_al[slots[k]][z] = al;
                    }
                }
            }
        }
    }
    // libjpeg smooths a file whose DC or first nine AC terms are unfinished; then the
    // full decode is not what the copy would give.
    for (int slot = 0; slot < plan.count; slot++) {
        for (int z = 0; z < 10; z++) {
            if (plan.coef_bits[slot][z] != 0) {
                return 0;
            }
        }
    }
    // Second pass: copy every segment but the scans a scaled decode can do without.
    memcpy(out, in, 2);
    size_t written = 2;
    int dropped = 0;
    pos = 2;
    for (;;) {
        if (!next_segment(in, count, &pos, &seg)) {
            return 0;
        }
        if (seg.marker == 0xDA && read_scan(&seg, &plan, slots, &components, &ss, &se, &ah, &al) && ss > 0 &&
            droppable(&plan, slots[0], ss, ah)) {
            dropped = 1;
            continue;
        }
        memcpy(out + written, in + seg.start, seg.end - seg.start);
        written += seg.end - seg.start;
        if (seg.marker == 0xD9) {
            return dropped ? written : 0;
        }
    }
}
