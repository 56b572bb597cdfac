// libdeflate (Debian libdeflate-dev): whole-buffer zlib inflate and CRC-32 for the PNG fast path.
#include <libdeflate.h>
