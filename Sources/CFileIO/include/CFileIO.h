// Non-blocking file reads for the disk cache's hit path.
//
// A cache hit whose file is in the page cache can be read without ever blocking the
// calling thread: openat2 with RESOLVE_CACHED fails with EAGAIN instead of reading
// directory or inode blocks from the disk, and preadv2 with RWF_NOWAIT fails with
// EAGAIN instead of waiting for data that is not in the page cache. Only then does the
// caller hand the read to a thread pool. Both need Linux (5.12 and 4.14); elsewhere
// these functions fail with ENOSYS and the caller always uses the pool.
#ifndef CFILEIO_H
#define CFILEIO_H

#include <stddef.h>
#include <sys/types.h>

/// Opens `path` read-only (close-on-exec, non-blocking) using only cached path and
/// inode lookups.
/// Returns the descriptor, or -1 with errno EAGAIN when the lookup would touch the
/// disk, ENOSYS when the kernel lacks openat2, or the error open(2) would give.
int wi_open_cached(const char *path);

/// Reads up to `count` bytes at `offset` from the page cache only. Returns the bytes
/// read (fewer than asked when only part is cached), or -1 with errno EAGAIN when none
/// is cached, EOPNOTSUPP or ENOSYS when the file system or kernel cannot do this.
ssize_t wi_pread_nowait(int fd, void *buffer, size_t count, off_t offset);

/// Opens an unnamed, write-only regular file in `directory` (O_TMPFILE, mode 0644 less
/// the umask) for the disk cache's writes. Returns -1 with errno EOPNOTSUPP or EISDIR
/// where the file system or kernel cannot, ENOSYS on other platforms.
int wi_open_tmpfile(const char *directory);

/// Gives the unnamed file open at `fd` the name `target` (linkat through
/// /proc/self/fd). Fails with EEXIST when `target` exists: it never replaces.
int wi_link_descriptor(int fd, const char *target);

#endif
