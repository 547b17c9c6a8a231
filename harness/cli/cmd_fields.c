/* SPDX-License-Identifier: MIT */
/* `gcverify fields [--markdown]`: print the table and column reference that
 * the invariant YAML can name, generated from the table descriptors. With
 * --markdown the output is docs/fields.md byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_exit.h"
#include "gc_fields_doc.h"

int gc_cmd_fields(int argc, char **argv);

static void fields_usage(FILE *f)
{
    fprintf(f, "usage: gcverify fields [--markdown]\n\n"
               "Print every table the decoders publish, with each column's name, type,\n"
               "unit and doc. --markdown writes the form committed as docs/fields.md:\n"
               "  ./build/gcverify fields --markdown > docs/fields.md\n");
}

int gc_cmd_fields(int argc, char **argv)
{
    int markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fields_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "gcverify fields: unknown argument '%s'\n", argv[i]);
            fields_usage(stderr);
            return 2;
        }
    }
    char *s = markdown ? gc_fields_markdown() : gc_fields_text();
    if (!s) {
        fprintf(stderr, "gcverify fields: out of memory\n");
        return 1;
    }
    int rc = 0;
    if (fputs(s, stdout) == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "gcverify fields: cannot write the output\n");
        rc = GC_EXIT_WRITE;
    }
    free(s);
    return rc;
}
