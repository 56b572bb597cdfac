// Which JPEGs the scaled decoder takes (see wi_jpeg_scaled.c), decided from libjpeg's
// parse of the headers before anything is decoded.
#include "wi_jpeg_scaled.h"

#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

static wi_scaled_huffman *table(wi_scaled_job *job, const JHUFF_TBL *source, int slot, int is_dc) {
    if (source == NULL || slot < 0 || slot > 3) {
        return NULL; // no table: libjpeg would fill in the standard ones (Motion JPEG)
    }
    int index = (is_dc ? 0 : 4) + slot;
    if (job->tables[index] == NULL) {
        wi_scaled_huffman *t = malloc(sizeof *t);
        if (t == NULL) {
            return NULL;
        }
        if (!wi_scaled_huffman_build(t, source->bits, source->huffval, is_dc)) {
            free(t);
            return NULL;
        }
        job->tables[index] = t;
    }
    return job->tables[index];
}

static size_t round_up(size_t value, size_t unit) {
    return (value + unit - 1) / unit;
}

wi_scaled_status wi_scaled_setup(wi_scaled_job *job, const struct jpeg_decompress_struct *c, size_t max_bytes) {
    if (c->progressive_mode || c->arith_code || c->data_precision != 8 || c->scale_num != 1 ||
        (c->scale_denom != 8 && c->scale_denom != 4) || (c->num_components != 1 && c->num_components != 3) ||
        c->comps_in_scan != c->num_components || c->Ss != 0 || c->Se != DCTSIZE2 - 1 || c->Ah != 0 || c->Al != 0 ||
        c->src == NULL || c->src->next_input_byte == NULL) {
        return WI_SCALED_DECLINED;
    }
    const jpeg_component_info *luma = &c->comp_info[0];
    if (c->num_components == 3 &&
        (luma->h_samp_factor < 1 || luma->h_samp_factor > 2 || luma->v_samp_factor < 1 || luma->v_samp_factor > 2 ||
         c->comp_info[1].h_samp_factor != 1 || c->comp_info[1].v_samp_factor != 1 ||
         c->comp_info[2].h_samp_factor != 1 || c->comp_info[2].v_samp_factor != 1)) {
        return WI_SCALED_DECLINED;
    }
    job->count = c->num_components;
    size_t total = 0;
    if (job->count == 1) {
        job->mcus_per_row = luma->width_in_blocks;
        job->mcu_rows = luma->height_in_blocks;
    } else {
        job->mcus_per_row = (unsigned)round_up(c->image_width, (size_t)c->max_h_samp_factor * DCTSIZE);
        job->mcu_rows = (unsigned)round_up(c->image_height, (size_t)c->max_v_samp_factor * DCTSIZE);
    }
    for (int i = 0; i < job->count; i++) {
        const jpeg_component_info *p = c->cur_comp_info[i];
        wi_scaled_component *out = &job->component[i];
        // Planes in frame order: a scan listing the components otherwise is declined.
        if (p != &c->comp_info[i] || !p->component_needed) {
            return WI_SCALED_DECLINED;
        }
        out->h = job->count == 1 ? 1 : p->h_samp_factor;
        out->v = job->count == 1 ? 1 : p->v_samp_factor;
        out->scaled = p->DCT_scaled_size;
        if (out->scaled != 1 && out->scaled != 2 && out->scaled != 4) {
            return WI_SCALED_DECLINED;
        }
        if (p->quant_tbl_no < 0 || p->quant_tbl_no >= NUM_QUANT_TBLS || c->quant_tbl_ptrs[p->quant_tbl_no] == NULL) {
            return WI_SCALED_DECLINED;
        }
        const JQUANT_TBL *quant = c->quant_tbl_ptrs[p->quant_tbl_no];
        for (int k = 0; k < DCTSIZE2; k++) {
            out->quant[k] = (int16_t)quant->quantval[k]; // libjpeg's ISLOW_MULT_TYPE cast
        }
        out->dc = table(job, p->dc_tbl_no >= 0 && p->dc_tbl_no < 4 ? c->dc_huff_tbl_ptrs[p->dc_tbl_no] : NULL,
                        p->dc_tbl_no, 1);
        out->ac = table(job, p->ac_tbl_no >= 0 && p->ac_tbl_no < 4 ? c->ac_huff_tbl_ptrs[p->ac_tbl_no] : NULL,
                        p->ac_tbl_no, 0);
        if (out->dc == NULL || out->ac == NULL) {
            return WI_SCALED_DECLINED;
        }
        size_t side = (size_t)out->scaled;
        total += (size_t)job->mcus_per_row * (size_t)out->h * side * (size_t)job->mcu_rows * (size_t)out->v * side;
    }
    if (total > max_bytes) {
        return WI_SCALED_DECLINED;
    }
    job->restart_interval = c->restart_interval;
    job->data = c->src->next_input_byte;
    job->size = c->src->bytes_in_buffer;
    return WI_SCALED_OK;
}
