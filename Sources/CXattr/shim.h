// Extended attributes (getxattr/setxattr/removexattr), which the Glibc module does not export.
#include <sys/types.h>
#include <sys/xattr.h>
