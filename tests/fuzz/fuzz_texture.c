/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the texture decoder (decoders/dec_texture.c): the
 * input becomes a minimal level whose tfrag texture table, core_data and GS
 * RAM the fuzzer controls, then the decoder runs and every texture is fetched
 * at every mip level in both alpha modes. Also built as the replay test
 * replay_texture over tests/fuzz/corpus/texture/.
 *
 * Input layout (little-endian):
 *   +0  u8   texture count (mod 9)
 *   +1  u8   bit 0: core header decoded, bit 1: core_data decoded
 *   +2  u16  GS RAM size in 0x100-byte units (mod 0x41)
 *   +4  s32  textures_base
 *   +8  count x 16 bytes: TextureEntry (data_offset, width, height, type,
 *            palette, mipmap, pad)
 *   then GS RAM (as many bytes as declared, or what is left), then core_data.
 * Checks beyond ASan: the decoder's status is ok or a documented skip or
 * error, one row per entry, and every image has the size its row says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gc_level.h"
#include "gc_texture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const gc_decoder gc_dec_texture;

static void check(int cond)
{
    if (!cond)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8)
        return 0;
    size_t count = data[0] % 9u;
    uint8_t flags = data[1];
    size_t gs_size = (size_t)(data[2] | data[3] << 8) % 0x41u * 0x100u;
    int32_t base = (int32_t)((uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 |
                             (uint32_t)data[7] << 24);
    size_t table = count * 16;
    if (size - 8 < table)
        table = (size - 8) / 16 * 16; /* a short table: the decoder must reject the count */
    const uint8_t *rest = data + 8 + table;
    size_t left = size - 8 - table;
    if (gs_size > left)
        gs_size = left;

    uint8_t *ci = malloc(table ? table : 1);
    uint8_t *gs = malloc(gs_size ? gs_size : 1);
    uint8_t *cd = malloc(left - gs_size ? left - gs_size : 1);
    gc_level lv;
    if (!ci || !gs || !cd || gc_level_init(&lv, 0, "FUZZ.WAD", NULL, 0) != GC_OK) {
        free(ci);
        free(gs);
        free(cd);
        return 0;
    }
    memcpy(ci, data + 8, table);
    memcpy(gs, rest, gs_size);
    memcpy(cd, rest + gs_size, left - gs_size);
    lv.core_index = (gc_span){ci, table, 0x800, true};
    lv.gs_ram = (gc_span){gs, gs_size, 0x10000, true};
    lv.core_data = cd; /* freed by gc_level_free */
    lv.core_data_size = left - gs_size;
    lv.core.textures_base = base;
    lv.core.tfrag_textures.count = (int32_t)count;
    lv.core.tfrag_textures.offset = 0;
    lv.core_ok = (flags & 1) != 0;
    lv.data_ok = (flags & 2) != 0;

    gc_diag d;
    gc_diag_init(&d);
    gc_status s = gc_dec_texture.run(&lv, &d);
    check(s == GC_OK || s == GC_E_UNSUPPORTED || s == GC_E_RANGE);
    check(d.status == s);
    gc_rowbuf *rb = gc_level_rows(&lv, gc_dec_texture.tables[0]);
    check(rb != NULL);
    if (s == GC_OK) {
        check(rb->count == count);
        const gc_texture_row *rows = (const gc_texture_row *)rb->data;
        for (size_t i = 0; i < count; i++) {
            for (int mip = -1; mip <= GC_TEXTURE_MIP_LEVELS; mip++) {
                for (int ps2 = 0; ps2 < 2; ps2++) {
                    uint8_t *rgba = NULL;
                    uint32_t w = 0, h = 0;
                    gc_diag_init(&d);
                    gc_status t = gc_texture_rgba(&lv, (uint32_t)i, mip, ps2, &rgba, &w, &h, &d);
                    check(t == GC_OK || t == GC_E_UNSUPPORTED || t == GC_E_RANGE ||
                          t == GC_E_TRUNCATED || t == GC_E_NOMEM);
                    if (t == GC_OK) {
                        check(w == (uint32_t)rows[i].width >> mip);
                        check(h == (uint32_t)rows[i].height >> mip);
                        /* touch the last pixel: ASan checks the allocation size */
                        volatile uint8_t last = rgba[(size_t)w * h * 4 - 1];
                        check(!ps2 || last <= 0x80);
                    } else {
                        check(rgba == NULL);
                    }
                    if (t != GC_E_NOMEM) {
                        /* the row and the pixel API agree on what is inside */
                        if (mip == 0)
                            check((t == GC_OK) == (rows[i].pixels_ok != 0));
                        if (rows[i].pixels_ok && mip >= 0 && mip < rows[i].mip_levels)
                            check(t == GC_OK);
                    }
                    free(rgba);
                }
            }
        }
    }
    gc_level_free(&lv);
    free(ci);
    free(gs);
    return 0;
}
