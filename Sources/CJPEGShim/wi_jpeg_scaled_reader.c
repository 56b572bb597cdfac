// The scaled decoder's bit reader, its slow paths: see wi_jpeg_scaled_reader.h.
#include "wi_jpeg_scaled_reader.h"

reader wi_scaled_refill_slow(reader state) {
    reader *r = &state;
    while (r->count <= 56) {
        if (r->next >= r->end) {
            r->count += 8;
            r->padding += 8;
            continue;
        }
        unsigned byte = *r->next;
        if (byte == 0xFF) {
            // 0xFF 0x00 is a data byte 0xFF (fill 0xFFs before it are dropped, as libjpeg does);
            // 0xFF and anything else starts a marker, which ends the data.
            const uint8_t *q = r->next + 1;
            while (q < r->end && *q == 0xFF) {
                q++;
            }
            if (q < r->end && *q == 0) {
                r->irregular |= q > r->next + 1;
                r->next = q + 1;
            } else {
                r->marker = r->next;
                r->end = r->next;
                continue;
            }
        } else {
            r->next++;
        }
        r->bits |= (uint64_t)byte << (56 - r->count);
        r->count += 8;
    }
    return state;
}

void wi_scaled_reader_start(reader *r, const uint8_t *from, const uint8_t *end) {
    r->bits = 0;
    r->count = 0;
    r->padding = 0;
    r->irregular = 0;
    r->next = from;
    r->end = end;
    r->data_end = end;
    r->marker = NULL;
}

int wi_scaled_restart(reader state, unsigned *next_restart, reader *restarted) {
    const reader *r = &state;
    if (r->padding > r->count || r->irregular) {
        return 0;
    }
    const uint8_t *q = r->marker != NULL ? r->marker : r->next, *end = r->data_end;
    for (;;) {
        while (q < end && *q != 0xFF) {
            q++;
        }
        while (q < end && *q == 0xFF) {
            q++;
        }
        if (q >= end) {
            return 0;
        }
        if (*q != 0) {
            break;
        }
        q++;
    }
    if (*q != 0xD0 + *next_restart) {
        return 0;
    }
    *next_restart = (*next_restart + 1) & 7;
    wi_scaled_reader_start(restarted, q + 1, end);
    return 1;
}
