/* SPDX-License-Identifier: MIT */
/* The synthetic disc image (`gcverify synth --iso F`): the 27 level files as
 * an ISO 9660 volume with the RC2.HDR table of contents where the retail
 * disc has it, laid out as docs/formats/disc-image.md §3 says. Written from
 * that page only: nothing here is shared with the reader (corpus_iso.c,
 * corpus_toc.c), so a misreading on one side is caught by the other and by
 * xorriso in tests/test_iso.c.
 *
 * The ISO 9660 structures (volume descriptors, directory records, path
 * tables) come from libiso9660's builders; the sector layout is ours, because
 * the table of contents must sit at sector 1001 and no library writer lets
 * a caller place files (README, "Disc images"). Deterministic: every date is
 * fixed, nothing depends on the clock, the host or the file system order. */
#ifndef GC_ISO_WRITE_H
#define GC_ISO_WRITE_H

#include <stddef.h>

#define GC_ISO_WRITE_LEVELS 27

/* Write out_path (atomically: a temp file in the same directory, renamed)
 * from level_paths[i] = the file to store as LEVEL<i>.WAD, all 27 present.
 * 0, or -1 with err filled. */
int gc_iso_write_levels(const char *out_path, const char *const level_paths[GC_ISO_WRITE_LEVELS],
                        char *err, size_t errlen);

#endif
