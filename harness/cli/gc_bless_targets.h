/* SPDX-License-Identifier: MIT */
/* Where `gcverify bless` may write (issue 14): into the baseline's own
 * directory — the checkout's golden/ for a build-tree binary, or the
 * directory of --baseline — and never into an installed gcverify's prefix. */
#ifndef GC_BLESS_TARGETS_H
#define GC_BLESS_TARGETS_H

#include <stddef.h>

#include "gc_sweep.h"

/* Before the sweep runs: refuse (message on stderr, -1) when a file bless
 * would write lies in the install prefix of this gcverify, naming the flag
 * to pass. `frames`: --frames given; ledger: --ledger or NULL. 0 = go on. */
int gc_bless_check_targets(const gc_sweep_opts *o, int frames, const char *ledger);

/* LEDGER.md in the directory of metrics_path, into buf; returns buf. */
const char *gc_bless_default_ledger(const char *metrics_path, char *buf, size_t n);

#endif
