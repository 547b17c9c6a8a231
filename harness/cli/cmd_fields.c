/* SPDX-License-Identifier: MIT */
/* `gcverify fields [--markdown]`: print the table and column reference that
 * the invariant YAML can name, generated from the table descriptors. With
 * --markdown the output is docs/fields.md byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gc_cli_opts.h"
#include "gc_exit.h"
#include "gc_fields_doc.h"

int gc_cmd_fields(int argc, char **argv);

int gc_cmd_fields(int argc, char **argv)
{
    int markdown = 0;
    enum { K_MARKDOWN = GC_OPT_LONG };
    static const gc_opt opts[] = {
        {"markdown", K_MARKDOWN, NULL, "the form committed as docs/fields.md"},
    };
    static const gc_opt_group groups[] = {GC_OPT_GROUP(NULL, opts)};
    static const gc_cmd_spec spec =
        GC_CMD_SPEC("fields", "[--markdown]",
                    "Print every table the decoders publish, with each column's name, type,\n"
                    "unit and doc. --markdown writes the form committed as docs/fields.md:\n"
                    "  ./build/gcverify fields --markdown > docs/fields.md\n",
                    groups, NULL);
    gc_opts p;
    if (gc_opts_init(&p, &spec, argc, argv) != 0)
        return 2;
    for (int k; (k = gc_opts_next(&p)) != GC_OPT_DONE;) {
        switch (k) {
        case GC_OPT_HELP:
            return 0;
        case GC_OPT_ERROR:
            return 2;
        case GC_OPT_ARG:
            return gc_opts_usage_error(&spec, "unexpected argument '%s'", p.value);
        case K_MARKDOWN:
            markdown = 1;
            break;
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
