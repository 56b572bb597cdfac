// Where libjpeg keeps a multi-scan image's coefficients (private to the shim).
#ifndef WI_JPEG_COEFFICIENTS_H
#define WI_JPEG_COEFFICIENTS_H

#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct {
    void (*realize)(j_common_ptr);
    void (*free_pool)(j_common_ptr, int);
    void (*self_destruct)(j_common_ptr);
    struct jvirt_barray_control *arrays;
} wi_coefficient_store;

/// Makes `cinfo` (just created) keep its whole-image coefficient arrays in `store`'s
/// mappings; `store` must outlive `cinfo` and is named by `cinfo->client_data`.
void wi_coefficients_install(j_common_ptr cinfo, wi_coefficient_store *store);

#endif
