/* SPDX-License-Identifier: MIT */
/* VIF1 code-word walker (see gc_vif.h for the framing rules and their source). */
#include "gc_vif.h"

uint32_t gc_vif_element_bytes(unsigned vn, unsigned vl)
{
    return ((32u >> (vl & 3u)) * ((vn & 3u) + 1u)) / 8u;
}

void gc_vif_begin(gc_vif_walker *w, gc_reader list, unsigned framing)
{
    w->r = list;
    w->r.pos = 0;
    w->r.overrun = false;
    w->framing = framing;
    w->error = GC_VIF_OK;
    w->error_ofs = 0;
    w->error_file_ofs = list.file_ofs;
    w->codes = 0;
}

/* gc_vif_next and its helpers are inline in gc_vif.h. */
void gc_vif_fail(gc_vif_walker *w, gc_vif_error e, size_t ofs)
{
    w->error = e;
    w->error_ofs = ofs;
    w->error_file_ofs = w->r.file_ofs + ofs;
}

const char *gc_vif_cmd_name(uint8_t cmd)
{
    cmd &= 0x7f;
    if ((cmd & 0x60) == 0x60)
        return "UNPACK";
    switch (cmd) {
    case GC_VIF_NOP:
        return "NOP";
    case GC_VIF_STCYCL:
        return "STCYCL";
    case GC_VIF_OFFSET:
        return "OFFSET";
    case GC_VIF_BASE:
        return "BASE";
    case GC_VIF_ITOP:
        return "ITOP";
    case GC_VIF_STMOD:
        return "STMOD";
    case GC_VIF_MSKPATH3:
        return "MSKPATH3";
    case GC_VIF_MARK:
        return "MARK";
    case GC_VIF_FLUSHE:
        return "FLUSHE";
    case GC_VIF_FLUSH:
        return "FLUSH";
    case GC_VIF_FLUSHA:
        return "FLUSHA";
    case GC_VIF_MSCAL:
        return "MSCAL";
    case GC_VIF_MSCALF:
        return "MSCALF";
    case GC_VIF_MSCNT:
        return "MSCNT";
    case GC_VIF_STMASK:
        return "STMASK";
    case GC_VIF_STROW:
        return "STROW";
    case GC_VIF_STCOL:
        return "STCOL";
    case GC_VIF_MPG:
        return "MPG";
    case GC_VIF_DIRECT:
        return "DIRECT";
    case GC_VIF_DIRECTHL:
        return "DIRECTHL";
    default:
        return "?";
    }
}

const char *gc_vif_error_name(gc_vif_error e)
{
    switch (e) {
    case GC_VIF_OK:
        return "ok";
    case GC_VIF_E_CUT:
        return "cut";
    case GC_VIF_E_UNKNOWN:
        return "unknown_command";
    default:
        return "?";
    }
}
