#define _GNU_SOURCE
#include "CFileIO.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>

int wi_open_cached(const char *path) {
#ifdef SYS_openat2
    struct open_how how = {0};
    // O_NONBLOCK: a FIFO or device must not make the open itself wait.
    how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    how.resolve = RESOLVE_CACHED;
    return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
#else
    (void)path;
    errno = ENOSYS;
    return -1;
#endif
}

ssize_t wi_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
    struct iovec vector = {.iov_base = buffer, .iov_len = count};
    ssize_t n;
    do {
        n = preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
    } while (n < 0 && errno == EINTR);
    return n;
}

int wi_open_tmpfile(const char *directory) {
#ifdef O_TMPFILE
    return open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
#else
    (void)directory;
    errno = ENOSYS;
    return -1;
#endif
}

int wi_link_descriptor(int fd, const char *target) {
    // Through /proc/self/fd rather than AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH.
    char source[64];
    snprintf(source, sizeof(source), "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW);
}

#else

int wi_open_cached(const char *path) {
    (void)path;
    errno = ENOSYS;
    return -1;
}

ssize_t wi_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
    (void)fd; (void)buffer; (void)count; (void)offset;
    errno = ENOSYS;
    return -1;
}

int wi_open_tmpfile(const char *directory) {
    (void)directory;
    errno = ENOSYS;
    return -1;
}

int wi_link_descriptor(int fd, const char *target) {
    (void)fd; (void)target;
    errno = ENOSYS;
    return -1;
}

#endif
