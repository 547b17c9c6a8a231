/* SPDX-License-Identifier: MIT */
/* Bless targets (gc_bless_targets.h). */
#include "gc_bless_targets.h"

#include <stdio.h>
#include <string.h>

#include "gc_paths.h"

static int refuse(const char *what, const char *path, const char *flag)
{
    fprintf(stderr,
            "gcverify bless: %s %s is inside this gcverify's installation (%s); bless writes "
            "only beside your own baselines: pass %s\n",
            what, path, gc_data_dir(), flag);
    return -1;
}

int gc_bless_check_targets(const gc_sweep_opts *o, int frames, const char *ledger)
{
    int installed = gc_data_origin_get() == GC_DATA_INSTALLED;
    int have_baseline = o->baseline && o->baseline[0] && strcmp(o->baseline, "none") != 0;
    if (installed && !have_baseline) {
        fprintf(stderr,
                "gcverify bless: this gcverify is installed (its goldens are in %s, which bless "
                "never writes); pass --baseline F for the metrics file to write (and "
                "--frames-golden F with --frames), or run the build-tree gcverify of a checkout "
                "to bless its golden/\n",
                gc_data_dir());
        return -1;
    }
    if (have_baseline && gc_path_in_installed_data(o->baseline))
        return refuse("the baseline", o->baseline, "--baseline F outside it");
    if (frames) {
        int have_frames = o->frames_golden && o->frames_golden[0];
        if (installed && !have_frames)
            return refuse("the default frames file", "golden/frames*.yaml",
                          "--frames-golden F with --frames");
        if (have_frames && gc_path_in_installed_data(o->frames_golden))
            return refuse("the frames file", o->frames_golden, "--frames-golden F outside it");
    }
    if (ledger && gc_path_in_installed_data(ledger))
        return refuse("the ledger", ledger, "--ledger F outside it");
    return 0;
}

const char *gc_bless_default_ledger(const char *metrics_path, char *buf, size_t n)
{
    const char *slash = strrchr(metrics_path, '/');
    if (!slash)
        snprintf(buf, n, "LEDGER.md");
    else
        snprintf(buf, n, "%.*s/LEDGER.md", (int)(slash - metrics_path), metrics_path);
    return buf;
}
