// glibc's mallopt, which Glibc's Swift module does not export (webimage serve tunes it).
#include <malloc.h>
