// Corpus harness: every file named on the command line, both scales.
#include "wi_jpeg_scaled_compare.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int counts[12] = {0};
    for (int a = 1; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *b = malloc(n > 0 ? n : 1);
        if (fread(b, 1, n, f) != (size_t)n) { fclose(f); free(b); continue; }
        fclose(f);
        for (unsigned s = 4; s <= 8; s += 4) {
            char where[256] = "";
            wi_compare_result r = getenv("RGB") ? wi_scaled_compare_rgb(b, n, s, (size_t)1 << 30, where, sizeof where)
                                                : wi_scaled_compare(b, n, s, (size_t)1 << 28, where, sizeof where);
            counts[r]++;
            const char *names[] = {"same", "declined", "irregular", "libjpeg-header-fails"};
            if (r >= 10 || getenv("VERBOSE"))
                printf("%s 1/%u: %s %s\n", argv[a], s, r >= 10 ? (r == 10 ? "DIFFER" : "WE-ACCEPT-LIBJPEG-FAILS") : names[r], where);
        }
        free(b);
    }
    printf("same %d declined %d irregular %d header-fails %d DIFFER %d WE-ACCEPT %d\n", counts[0], counts[1],
           counts[2], counts[3], counts[10], counts[11]);
    return counts[10] + counts[11] ? 1 : 0;
}
