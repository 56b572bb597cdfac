#include "wi_jpeg_coefficients.h"

#include <jerror.h>
#include <sys/mman.h>

// A progressive (or multi-scan) JPEG is decoded into one coefficient array per component
// covering the whole image: 128 bytes per 8×8 block, 36 MB for a 12 MP 4:2:0 photo. libjpeg
// mallocs each; under `webimage serve`'s fixed 256 KiB mmap threshold (so freed pixels go
// back to the system) every decode then gets fresh mappings, faulted in 4 KB at a time and
// zeroed again by libjpeg. Mapping the arrays here gives memory already zero (libjpeg's
// pre-zeroing is skipped) and asks for transparent huge pages, one fault per 2 MB. Measured
// on a 12 MP progressive photo to a 500 px thumbnail (1/4 scale), median CPU per image on a
// shared 2-core machine under that threshold: 49–52 ms vs 69–73 ms with malloc. With glibc's
// default dynamic threshold a loop of decodes reuses the heap and malloc was as fast (39–50
// vs 43–57 ms). Everything else still goes to libjpeg's own memory manager; the arrays are
// unmapped when libjpeg frees its image pool.

struct jvirt_barray_control {
    JBLOCKARRAY rows;
    void *mapping;
    size_t bytes;
    JDIMENSION row_count;
    JDIMENSION blocks_per_row;
    struct jvirt_barray_control *next;
};

static wi_coefficient_store *store_of(j_common_ptr cinfo) {
    return (wi_coefficient_store *)cinfo->client_data;
}

static void unmap_all(wi_coefficient_store *store) {
    for (struct jvirt_barray_control *array = store->arrays; array != NULL; array = array->next) {
        if (array->mapping != NULL) {
            munmap(array->mapping, array->bytes);
            array->mapping = NULL;
        }
    }
    store->arrays = NULL; // the control blocks live in libjpeg's image pool
}

static jvirt_barray_ptr request(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                JDIMENSION row_count, JDIMENSION max_access) {
    wi_coefficient_store *store = store_of(cinfo);
    (void)pre_zero;   // fresh mappings read as zero
    (void)max_access; // every row stays mapped
    // A decoder asks for coefficient arrays only in the image pool. Any other pool would hand
    // back libjpeg's own control block, which `access` below could not read, so refuse it.
    if (pool_id != JPOOL_IMAGE) {
        ERREXIT1(cinfo, JERR_BAD_POOL_ID, pool_id);
    }
    struct jvirt_barray_control *array =
        (*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, sizeof(struct jvirt_barray_control));
    array->rows = NULL;
    array->mapping = NULL;
    array->bytes = (size_t)row_count * blocks_per_row * sizeof(JBLOCK);
    array->row_count = row_count;
    array->blocks_per_row = blocks_per_row;
    array->next = store->arrays;
    store->arrays = array;
    return array;
}

static void realize(j_common_ptr cinfo) {
    wi_coefficient_store *store = store_of(cinfo);
    store->realize(cinfo);
    for (struct jvirt_barray_control *array = store->arrays; array != NULL; array = array->next) {
        if (array->rows != NULL || array->bytes == 0) {
            continue;
        }
        void *mapping = mmap(NULL, array->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapping == MAP_FAILED) {
            ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 12);
        }
        array->mapping = mapping;
#ifdef MADV_HUGEPAGE
        madvise(mapping, array->bytes, MADV_HUGEPAGE);
#endif
        array->rows = (*cinfo->mem->alloc_small)(cinfo, JPOOL_IMAGE, array->row_count * sizeof(JBLOCKROW));
        for (JDIMENSION row = 0; row < array->row_count; row++) {
            array->rows[row] = (JBLOCKROW)mapping + (size_t)row * array->blocks_per_row;
        }
    }
}

// All rows are in memory, and fresh mappings read as zero, which is what libjpeg's
// pre_zero asks for.
static JBLOCKARRAY access(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start_row, JDIMENSION row_count,
                          boolean writable) {
    (void)writable;
    if (array->rows == NULL || start_row + row_count > array->row_count || start_row + row_count < start_row) {
        ERREXIT(cinfo, JERR_BAD_VIRTUAL_ACCESS);
    }
    return array->rows + start_row;
}

static void free_pool(j_common_ptr cinfo, int pool_id) {
    wi_coefficient_store *store = store_of(cinfo);
    if (pool_id == JPOOL_IMAGE) {
        unmap_all(store);
    }
    store->free_pool(cinfo, pool_id);
}

static void self_destruct(j_common_ptr cinfo) {
    wi_coefficient_store *store = store_of(cinfo);
    unmap_all(store);
    store->self_destruct(cinfo);
}

void wi_coefficients_install(j_common_ptr cinfo, wi_coefficient_store *store) {
    struct jpeg_memory_mgr *mem = cinfo->mem;
    store->realize = mem->realize_virt_arrays;
    store->free_pool = mem->free_pool;
    store->self_destruct = mem->self_destruct;
    store->arrays = NULL;
    cinfo->client_data = store;
    mem->request_virt_barray = request;
    mem->realize_virt_arrays = realize;
    mem->access_virt_barray = access;
    mem->free_pool = free_pool;
    mem->self_destruct = self_destruct;
}
