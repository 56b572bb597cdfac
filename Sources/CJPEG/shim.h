// jpeglib.h uses FILE and size_t without including their headers itself.
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
