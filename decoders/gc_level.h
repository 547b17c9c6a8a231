/* SPDX-License-Identifier: MIT */
/* One level being decoded: the input bytes, the decoders' shared state, and
 * the tables they publish. The harness opens a gc_level per container, runs
 * gc_level_decode(), then hands gc_level_tables() to the invariant engine and
 * the rasteriser. Decoders run in registry order (decoders/gc_decoders.def);
 * a later decoder may read the shared state an earlier one filled in. */
#ifndef GC_LEVEL_H
#define GC_LEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gc_faults.h"
#include "gc_reader.h"
#include "gc_status.h"
#include "gc_table.h"

#define GC_SECTOR_BYTES 0x800u

/* Level extents are in SECTORS; the generic G/ pair table uses bytes. The
 * 2048x unit error of the reference project came from mixing the two, so the
 * conversion has a name and is never written inline. */
static inline uint64_t gc_sectors_to_bytes(uint64_t sectors)
{
    return sectors * GC_SECTOR_BYTES;
}

/* A byte range of the input (or of a decompressed buffer). */
typedef struct gc_span {
    const uint8_t *data;
    size_t size;
    uint64_t
        file_ofs; /* offset of data[0] in the container (decompressed: 0-based in the stream) */
    bool present; /* the range was declared (size > 0) and lies inside its parent */
} gc_span;

/* The 0x60-byte container header (formats.md §2.1). Ranges are kept raw, in
 * sectors, exactly as stored. */
typedef struct gc_sector_range {
    int32_t offset_sectors;
    int32_t size_sectors;
} gc_sector_range;

typedef struct gc_container_header {
    int32_t header_size;            /* 0x00: 0x60 */
    int32_t disc_sector;            /* 0x04: absolute LBA on the disc */
    int32_t level_id;               /* 0x08 */
    int32_t reverb;                 /* 0x0c */
    gc_sector_range data;           /* 0x10 */
    gc_sector_range sound_bank;     /* 0x18 */
    gc_sector_range gameplay;       /* 0x20 */
    gc_sector_range occlusion;      /* 0x28 */
    gc_sector_range chunks[3];      /* 0x30 */
    gc_sector_range chunk_banks[3]; /* 0x48 */
} gc_container_header;

/* The 0xBC-byte level core header at core_index+0 (formats.md §3.3).
 * Count/offset pairs are COUNT FIRST. Region offsets are single words. */
typedef struct gc_array_range {
    int32_t count;
    int32_t offset;
} gc_array_range;

typedef struct gc_core_header {
    gc_array_range gs_ram;            /* 0x00 */
    int32_t tfrags;                   /* 0x08 data offset */
    int32_t occlusion;                /* 0x0c data offset */
    int32_t sky;                      /* 0x10 data offset */
    int32_t collision;                /* 0x14 data offset */
    gc_array_range moby_classes;      /* 0x18 */
    gc_array_range tie_classes;       /* 0x20 */
    gc_array_range shrub_classes;     /* 0x28 */
    gc_array_range tfrag_textures;    /* 0x30 */
    gc_array_range moby_textures;     /* 0x38 */
    gc_array_range tie_textures;      /* 0x40 */
    gc_array_range shrub_textures;    /* 0x48 */
    gc_array_range part_textures;     /* 0x50 */
    gc_array_range fx_textures;       /* 0x58 */
    int32_t textures_base;            /* 0x60 data offset */
    int32_t part_bank;                /* 0x64 */
    int32_t fx_bank;                  /* 0x68 */
    int32_t part_defs;                /* 0x6c index offset */
    int32_t sound_remap;              /* 0x70 */
    int32_t unknown_74;               /* 0x74 */
    int32_t ratchet_seqs;             /* 0x78 */
    int32_t scene_view_size;          /* 0x7c */
    int32_t unknown_80;               /* 0x80 */
    int32_t moby_gs_stash_count;      /* 0x84 */
    int32_t assets_compressed_size;   /* 0x88 core_data LZ blob incl. its 16-byte header */
    int32_t assets_decompressed_size; /* 0x8c core_data decompressed length */
    int32_t chrome_map_texture;       /* 0x90 */
    int32_t chrome_map_palette;       /* 0x94 */
    int32_t glass_map_texture;        /* 0x98 */
    int32_t glass_map_palette;        /* 0x9c */
    int32_t unknown_a0;               /* 0xa0 */
    int32_t heightmap;                /* 0xa4 */
    int32_t occlusion_oct;            /* 0xa8 */
    int32_t moby_gs_stash_list;       /* 0xac */
    int32_t occlusion_rad;            /* 0xb0 */
    int32_t moby_sound_remap;         /* 0xb4 */
    int32_t occlusion_rad2;           /* 0xb8 */
} gc_core_header;

typedef struct gc_level gc_level;

/* Growable row storage of one table. data is a large block of
 * gc_bigmem.h (or malloc's): it is freed with gc_big_free, never free. */
typedef struct gc_rowbuf {
    const gc_table_desc *desc;
    uint8_t *data;
    size_t count;
    size_t cap;
    gc_level *owner; /* charged for the row memory (gc_level_mem_charge) */
} gc_rowbuf;

/* Memory accounting (optional; the harness supplies it for its budget):
 * charge() is asked before the big allocations a level makes (row buffers,
 * decompressed core_data and gameplay) and may refuse (-1), which the
 * decoder turns into GC_E_NOMEM with its usual diagnostic; release() gives
 * back what was freed early. With no hook every charge succeeds. */
typedef struct gc_mem_hook {
    int (*charge)(void *ctx, size_t bytes);
    void (*release)(void *ctx, size_t bytes);
    /* Optional: the level will never read the input bytes [p, p + n) again
     * (the compressed core_data once it is decompressed: two thirds of a
     * retail file). The owner of the file may give their pages back
     * (madvise); nothing else of the file is named. */
    void (*discard)(void *ctx, const void *p, size_t n);
    void *ctx;
} gc_mem_hook;

#define GC_DECODER_MAX 32

/* One decoder module. Each dec_<name>.c defines exactly one of these,
 * `const gc_decoder gc_dec_<name>`, listed in gc_decoders.def. */
typedef struct gc_decoder {
    const char *name;                   /* "tfrag" */
    const char *doc;                    /* one line */
    const gc_table_desc *const *tables; /* tables this decoder fills */
    size_t table_count;
    /* Decode and fill tables. Returns GC_OK, or the status also set in *diag
     * when the decoder could not safely go on. Rows pushed before a failure
     * stay (they were decoded correctly); partial geometry must not be pushed. */
    gc_status (*run)(gc_level *lv, gc_diag *diag);
    /* Free decoder-private state stored in lv->priv[slot] (may be NULL).
     * Called by gc_level_drop_tables and again by gc_level_free, so it must
     * leave nothing behind to free twice (pointers back to NULL). */
    void (*release)(gc_level *lv);
} gc_decoder;

struct gc_level {
    /* input */
    int index;           /* container number: LEVEL<index>.WAD */
    char name[64];       /* "LEVEL3.WAD" (breadcrumb root) */
    const uint8_t *file; /* whole container, read-only */
    size_t file_size;
    int fault;          /* GC_FAULT_* to inject (GC_FAULTS builds), 0 = none */
    gc_mem_hook mem;    /* set after gc_level_init; zero = no accounting */
    size_t mem_charged; /* bytes charged and not released */
    bool mem_refused;   /* a charge was refused: a GC_E_NOMEM of this level is the budget's */

    /* shared decoded state, filled in registry order */
    bool header_ok; /* level decoder */
    gc_container_header hdr;
    gc_span data_extent, sound_bank, gameplay_z, occlusion_ext;
    gc_span chunks[3], chunk_banks[3];

    bool data_ok; /* data decoder */
    gc_span overlay, core_index, gs_ram, hud_header, core_data_z, transition;
    uint8_t *core_data; /* decompressed core_data (owned; freed with gc_big_free) */
    size_t core_data_size;

    bool core_ok; /* core decoder */
    gc_core_header core;
    /* Every known start offset inside decompressed core_data (region offsets,
     * textures_base, part/fx banks, assets_decompressed_size, every non-zero class
     * offset_in_asset_wad, moby_sound_remap, ratchet-seq offsets), sorted
     * ascending, duplicates removed. Owned by the core decoder (freed by its
     * release). A class span runs from its offset to the next higher start:
     * see gc_core_next_start(). */
    uint32_t *core_starts;
    size_t core_start_count;
    /* Every non-zero class offset_in_asset_wad of the moby, tie and shrub
     * tables, sorted, duplicates KEPT (core decoder): two classes at one
     * offset would share a span. See gc_core_class_offset_uses(). */
    uint32_t *class_offsets;
    size_t class_offset_count;

    uint8_t *gameplay; /* decompressed gameplay extent (owned, gc_big_free; gameplay decoder) */
    size_t gameplay_size;

    /* After gc_level_detach_file: the copies of overlay, core_index and
     * gs_ram that those spans then point into (owned), and their bytes. */
    uint8_t *file_copy;
    size_t file_copy_size;

    void *priv[GC_DECODER_MAX]; /* decoder-private state, by registry slot */

    /* output */
    gc_rowbuf *tables; /* gc_table_registry() order */
    size_t table_count;
    gc_diag first_error; /* first decoder error of this level (status GC_OK if none) */
};

/* Registry of decoders, in run order. */
const gc_decoder *const *gc_decoder_registry(size_t *count);
/* Registry slot of a decoder (for lv->priv), or -1. */
int gc_decoder_slot(const gc_decoder *dec);

/* Prepare a level over `file` (not copied; must outlive the level).
 * GC_E_NOMEM if the row buffers cannot be allocated. */
gc_status gc_level_init(gc_level *lv, int index, const char *name, const uint8_t *file,
                        size_t file_size);
/* Run every decoder in order. Each decoder gets its own diagnostic; its
 * outcome is published as a row of the decode.status table. Never stops early:
 * a decoder whose inputs are missing records itself as skipped. */
void gc_level_decode(gc_level *lv);
void gc_level_free(gc_level *lv);
/* Free what a decoded level holds beyond the tables a caller still reads:
 * the rows of every table whose keep[i] (gc_table_registry() order) is
 * false (keep NULL keeps every table), the unused capacity of the kept
 * ones, the decompressed core_data and gameplay streams, the file pointer
 * and the decoders' private state. The tables and their invariants read the
 * same afterwards; the renderer does NOT (its textures are read from
 * core_data and the file's GS RAM image), so drop after rendering. The
 * level stays valid for gc_level_tables (dropped tables read as empty),
 * gc_level_rows and gc_level_free. Returns the bytes freed from row storage.
 * The sweep calls it once a level's invariants, digests and frames are
 * done, so a corpus sweep holds one working set per job, not every level's
 * tables and streams. */
size_t gc_level_drop_tables(gc_level *lv, const bool *keep);

/* Let go of the input file once the decoders have run, keeping what is read
 * of it afterwards: the overlay (the renderer's normal table), core_index
 * (texture entries) and gs_ram (CLUTs, mip levels 2 and 3) are copied into
 * one owned buffer (charged to the memory hook) and their spans repointed;
 * every other span keeps its offset, size and presence but its data becomes
 * NULL, and lv->file is NULL. The caller may then free the file: a level
 * holds its decompressed streams, tables and those copies, not the
 * container too (LEVEL3: 25 MB of file for 5 MB of copies; issue 18).
 * 0, or -1 (out of memory or refused by the hook: nothing changed). */
int gc_level_detach_file(gc_level *lv);

/* Free the rows of every table whose keep[i] is false (registry order),
 * nothing else: the streams, the file and the decoders' state stay, so the
 * level still renders from the tables kept. Returns the bytes freed (and
 * gives them back to the memory hook). */
size_t gc_level_drop_rows(gc_level *lv, const bool *keep);

/* Free the decompressed gameplay stream (lv->gameplay NULL, gameplay_size 0;
 * the charge is given back). Not before rendering: the renderer reads the
 * tie ambient colours from it. */
void gc_level_drop_gameplay(gc_level *lv);

/* Ask the level's memory hook for `bytes` before allocating them: 0 granted,
 * -1 refused (lv->mem_refused set). gc_level_mem_release gives them back. */
int gc_level_mem_charge(gc_level *lv, size_t bytes);
void gc_level_mem_release(gc_level *lv, size_t bytes);

/* The row buffer for a table (NULL if the table is not registered). */
gc_rowbuf *gc_level_rows(gc_level *lv, const gc_table_desc *desc);
/* Grow rb (doubling) when it is full and append one zeroed row; NULL on
 * allocation failure. The slow path of gc_rows_push, out of line. */
void *gc_rows_push_grow(gc_rowbuf *rb);
/* Make room for `rows` rows in all (charged to the level like growth): a
 * decoder that knows its row count from a header's declared counts
 * allocates once instead of doubling and copying. A hint only: pushing past
 * it grows as usual. 0, or -1 (out of memory or refused; nothing changed). */
int gc_rows_reserve(gc_rowbuf *rb, size_t rows);
/* Give back the capacity past the rows pushed (gc_level_decode does it for
 * every table once the decoders have run). */
void gc_rows_shrink(gc_rowbuf *rb);
/* Append one zeroed row; NULL on allocation failure. Inline (C11 `inline`,
 * external definition in gc_level.c): the decoders push about 12 million rows
 * per retail corpus, and the out-of-line call was 31 instructions a row. */
inline void *gc_rows_push(gc_rowbuf *rb)
{
    if (!rb)
        return NULL;
    if (rb->count == rb->cap)
        return gc_rows_push_grow(rb);
    size_t rs = rb->desc->row_size;
    void *row = rb->data + rb->count * rs;
    memset(row, 0, rs);
    rb->count++;
    return row;
}
/* gc_rows_push for a call site that knows its row type T: the zeroing is a
 * memset of constant size, which the compiler writes as a few stores instead
 * of a call (the decoders' hot tables push ~11 million rows per retail
 * corpus decode; the call and its size dispatch were ~25 instructions a row).
 * A T that is not the table's row size takes the generic path. */
#define GC_ROWS_PUSH(rb, T) ((T *)gc_rows_push_sized((rb), sizeof(T)))
static inline void *gc_rows_push_sized(gc_rowbuf *rb, size_t size)
{
    if (!rb || rb->count == rb->cap || size != rb->desc->row_size)
        return gc_rows_push_grow(rb);
    void *row = rb->data + rb->count * size;
    memset(row, 0, size);
    rb->count++;
    return row;
}
/* Tables as the engine sees them, registry order; `out` holds table_count entries. */
void gc_level_tables(const gc_level *lv, gc_table *out);
/* Row pointer by index (no bounds check beyond an assert-style NULL). */
const void *gc_rows_at(const gc_rowbuf *rb, size_t i);

/* Re-run the tfrag lighting pass (docs/formats/tfrag.md §8.1) over the
 * level's tfrag.light rows, from the gameplay.dir_light and normals.table
 * rows as they now stand: after gc_level_decode, for a tool that edits the
 * light bank, and for the benchmark. Returns the rows lit. */
size_t gc_tfrag_relight(gc_level *lv);

/* decode.status: one row per decoder per level. */
typedef struct gc_decode_status_row {
    uint64_t file_ofs; /* where the failure was found (0 if none) */
    uint32_t decoder;  /* registry slot */
    char name[24];     /* decoder name */
    uint8_t ok;        /* ran and returned GC_OK */
    uint8_t skipped;   /* did not run: an input it needs was not decoded */
    uint32_t status;   /* gc_status */
    char status_name[16];
    char where[GC_DIAG_PATH_MAX];
    char message[GC_DIAG_MSG_MAX];
} gc_decode_status_row;

extern const gc_table_desc gc_table_decode_status;

/* The smallest known core_data start offset strictly greater than `ofs`
 * (lv->core_starts, filled by the core decoder), or `fallback` if none. */
static inline uint64_t gc_core_next_start(const gc_level *lv, uint64_t ofs, uint64_t fallback)
{
    size_t lo = 0, hi = lv->core_start_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lv->core_starts[mid] <= ofs)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < lv->core_start_count ? lv->core_starts[lo] : fallback;
}

/* How many class table entries (moby, tie, shrub) have offset_in_asset_wad
 * == ofs (lv->class_offsets, filled by the core decoder). */
static inline size_t gc_core_class_offset_uses(const gc_level *lv, uint64_t ofs)
{
    size_t lo = 0, hi = lv->class_offset_count;
    while (lo < hi) { /* first element >= ofs */
        size_t mid = lo + (hi - lo) / 2;
        if (lv->class_offsets[mid] < ofs)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    while (lo + n < lv->class_offset_count && lv->class_offsets[lo + n] == ofs)
        n++;
    return n;
}

/* A decoder whose input was not decoded by an earlier decoder returns this:
 * it becomes a "skipped" row of decode.status, not an error of its own. */
#define GC_NEEDS(diag, what) gc_diag_set((diag), GC_E_UNSUPPORTED, 0, "needs %s", (what))
/* Class tables (moby, tie, shrub) share their framing: a count/offset pair
 * of core_index entries of `stride` bytes, each starting with the class's
 * offset_in_asset_wad (+0x00) and o_class (+0x04). dec_classes.c. */

/* A reader over the whole table t (count * stride bytes of core_index), or
 * GC_E_RANGE naming `what` ("moby") with the breadcrumb
 * data/core_index/<what>_classes when it runs past core_index. */
gc_status gc_class_table_reader(gc_level *lv, gc_array_range t, size_t stride, const char *what,
                                gc_reader *tab, gc_diag *diag);

/* Where one class's data lies: an offset of 0 means no geometry (not the
 * start of core_data); the span runs to the next higher known start. */
typedef struct gc_class_span {
    uint8_t in_core_data;  /* offset non-zero and inside core_data */
    uint8_t shares_offset; /* another class of any table has the same offset */
    uint64_t span_bytes;   /* to the next known start (0 when not in core_data) */
} gc_class_span;
gc_class_span gc_class_span_of(const gc_level *lv, uint32_t offset_in_asset_wad);

/* The columns every class-table row (moby.class, tie.class, shrub.class)
 * starts with; the row struct T must have these members. `kind` is a string
 * literal ("moby") for the docs. */
#define GC_CLASS_ENTRY_COLUMNS(T, kind)                                                            \
    GC_COL(T, file_ofs, GC_T_U64, GC_CF_HEX, "bytes", "file offset of the class table entry"),     \
        GC_COL(T, index, GC_T_U32, 0, "", "entry index in the " kind " class table"),              \
        GC_COL(T, o_class, GC_T_S32, 0, "", "entry +0x04: class id"),                              \
        GC_COL(T, offset_in_asset_wad, GC_T_U32, GC_CF_HEX, "bytes in core_data",                  \
               "entry +0x00: class data offset (0 = no geometry)"),                                \
        GC_COL(T, span_bytes, GC_T_U64, 0, "bytes",                                                \
               "to the next higher known start in core_data (0 if not in core_data)"),             \
        GC_COL(T, in_core_data, GC_T_BOOL, 0, "", "offset non-zero and inside core_data"),         \
        GC_COL(T, shares_offset, GC_T_BOOL, 0, "",                                                 \
               "another moby/tie/shrub class has the same non-zero offset")

#endif
