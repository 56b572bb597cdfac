// Synthetic sweep: baseline JPEGs encoded here with libjpeg-turbo in every sampling the
// scaled decoder takes (grey, 4:4:4, 4:2:2, 4:4:0, 4:2:0), odd and tiny sizes, with and
// without restart intervals, each compared at 1/4 and 1/8 (planes and RGBA rows).
//   sweep                                        the sweep; exit 1 on any disagreement
//   sweep write W H H_SAMP V_SAMP RESTART FILE   one such file (H_SAMP 0: grey), as the
//                                                Tests/Fixtures/jpeg-scaled/*-sweep.jpg were made
#include "wi_jpeg_scaled_compare.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

static unsigned char *encode(int w, int h, int gray, int hs, int vs, int restart, unsigned long *size) {
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned char *out = NULL;
    *size = 0;
    jpeg_mem_dest(&c, &out, size);
    c.image_width = (JDIMENSION)w;
    c.image_height = (JDIMENSION)h;
    c.input_components = gray ? 1 : 3;
    c.in_color_space = gray ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 92, TRUE);
    if (!gray) {
        c.comp_info[0].h_samp_factor = hs;
        c.comp_info[0].v_samp_factor = vs;
    }
    c.restart_interval = (unsigned)restart;
    jpeg_start_compress(&c, TRUE);
    unsigned char *row = malloc((size_t)w * 3);
    unsigned seed = (unsigned)(w * 131 + h * 7 + hs * 3 + vs);
    while (c.next_scanline < c.image_height) {
        int y = (int)c.next_scanline;
        for (int x = 0; x < w; x++) {
            seed = seed * 1103515245u + 12345u;
            int noise = (int)(seed >> 24) % 48;
            row[3 * x] = (unsigned char)((x * 255 / (w > 1 ? w - 1 : 1) + noise) & 255);
            row[3 * x + 1] = (unsigned char)((y * 7 + noise * 2) & 255);
            row[3 * x + 2] = (unsigned char)(((x ^ y) * 13 + noise) & 255);
            if (gray) row[x] = row[3 * x];
        }
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    return out;
}

int main(int argc, char **argv) {
    if (argc == 8 && strcmp(argv[1], "write") == 0) {
        unsigned long size;
        int hs = atoi(argv[4]);
        unsigned char *jpeg = encode(atoi(argv[2]), atoi(argv[3]), hs == 0, hs, atoi(argv[5]), atoi(argv[6]), &size);
        FILE *f = fopen(argv[7], "wb");
        int ok = f != NULL && fwrite(jpeg, 1, size, f) == size;
        ok = f != NULL && fclose(f) == 0 && ok;
        free(jpeg);
        return ok ? 0 : 1;
    }
    static const int sides[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 23, 31, 32, 33, 47, 63, 65, 100, 129, 257};
    static const int samplings[][3] = {{1, 1, 1}, {0, 1, 1}, {0, 2, 1}, {0, 1, 2}, {0, 2, 2}};
    int n = (int)(sizeof sides / sizeof sides[0]), counts[12] = {0}, bad = 0;
    for (int s = 0; s < 5; s++)
        for (int wi = 0; wi < n; wi++)
            for (int hi = 0; hi < n; hi++)
                for (int restart = 0; restart <= 3; restart += 3) {
                    unsigned long size;
                    unsigned char *jpeg = encode(sides[wi], sides[hi], samplings[s][0], samplings[s][1],
                                                 samplings[s][2], restart, &size);
                    for (unsigned scale = 4; scale <= 8; scale += 4)
                        for (int rgb = 0; rgb <= 1; rgb++) {
                            char where[256] = "";
                            wi_compare_result r = rgb ? wi_scaled_compare_rgb(jpeg, size, scale, 1 << 28, where, sizeof where)
                                                      : wi_scaled_compare(jpeg, size, scale, 1 << 28, where, sizeof where);
                            counts[r]++;
                            if (r >= 2) {
                                bad++;
                                printf("%s %dx%d sampling %d restart %d 1/%u: result %d %s\n", rgb ? "RGBA" : "planes",
                                       sides[wi], sides[hi], s, restart, scale, (int)r, where);
                            }
                        }
                    free(jpeg);
                }
    printf("same %d declined %d irregular %d DIFFER %d WE-ACCEPT %d\n", counts[0], counts[1], counts[2], counts[10],
           counts[11]);
    return bad ? 1 : 0;
}
