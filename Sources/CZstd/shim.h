// zstd (Debian libzstd-dev): parquet's ZSTD pages.
#include <zstd.h>
