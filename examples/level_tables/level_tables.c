/* SPDX-License-Identifier: MIT */
/* Decode one level with libgcformats and print each table's row count
 * (docs/library.md). Build: cc level_tables.c $(pkg-config --cflags --libs gcformats) */
#include <gcformats/gcformats.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    FILE *f = argc == 2 ? fopen(argv[1], "rb") : NULL;
    if (!f)
        return fprintf(stderr, "usage: level_tables LEVEL<n>.WAD\n"), 2;
    static uint8_t buf[64u << 20]; /* the largest retail level is ~25 MB */
    size_t size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    gc_level lv;
    if (gc_level_init(&lv, 0, argv[1], buf, size) != GC_OK)
        return 1;
    gc_level_decode(&lv); /* never fails as a whole: each decoder reports in decode.status */
    size_t n;
    gc_table_registry(&n);
    gc_table *tables = malloc(n * sizeof *tables);
    gc_level_tables(&lv, tables);
    for (size_t i = 0; tables && i < n; i++)
        printf("%-28s %zu\n", tables[i].desc->name, tables[i].count);
    printf("first error: %s\n", gc_status_name(lv.first_error.status));
    free(tables);
    gc_level_free(&lv);
    return 0;
}
