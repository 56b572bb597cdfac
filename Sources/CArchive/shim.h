// libarchive (Debian libarchive-dev): writes the webdataset tar shards of `fetch --output-format webdataset`.
#include <archive.h>
#include <archive_entry.h>
