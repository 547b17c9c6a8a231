/* SPDX-License-Identifier: MIT */
/* The framing the moby, tie and shrub class tables share (formats.md §4.1-4.3):
 * a count/offset pair of fixed-stride entries in core_index whose first two
 * words are offset_in_asset_wad and o_class. */
#include <stdio.h>

#include "gc_level.h"

gc_status gc_class_table_reader(gc_level *lv, gc_array_range t, size_t stride, const char *what,
                                gc_reader *tab, gc_diag *diag)
{
    gc_diag_push(diag, "data/core_index/%s_classes", what);
    const gc_span *ci = &lv->core_index;
    size_t len = 0;
    if (t.count < 0 || t.offset < 0 || !gc_size_mul((size_t)t.count, stride, &len) ||
        !gc_range_ok((size_t)t.offset, len, ci->size))
        return gc_diag_set(
            diag, GC_E_RANGE, ci->file_ofs + (t.offset > 0 ? (uint64_t)t.offset : 0),
            "%s class table {count %d, offset 0x%x} runs past core_index (%zu bytes)", what,
            (int)t.count, (unsigned)t.offset, ci->size);
    gc_diag_pop(diag);
    *tab = gc_reader_make(ci->data + t.offset, len, ci->file_ofs + (uint64_t)t.offset);
    return GC_OK;
}

gc_class_span gc_class_span_of(const gc_level *lv, uint32_t offset_in_asset_wad)
{
    gc_class_span s = {0, 0, 0};
    s.in_core_data = offset_in_asset_wad != 0 && offset_in_asset_wad < lv->core_data_size;
    if (s.in_core_data) {
        uint64_t end = gc_core_next_start(lv, offset_in_asset_wad, lv->core_data_size);
        if (end > lv->core_data_size) /* a hostile start past the data */
            end = lv->core_data_size;
        s.span_bytes = end - offset_in_asset_wad;
        s.shares_offset = gc_core_class_offset_uses(lv, offset_in_asset_wad) > 1;
    }
    return s;
}
