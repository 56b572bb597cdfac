// zlib (Debian zlib1g-dev): gzread reads `fetch --file` lists, gzip-compressed or not.
#include <zlib.h>
