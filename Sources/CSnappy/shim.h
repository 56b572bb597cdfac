// snappy (Debian libsnappy-dev), through its C API: parquet's SNAPPY pages.
#include <snappy-c.h>
