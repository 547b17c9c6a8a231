/* SPDX-License-Identifier: MIT */
/* gc_formats_version(): the project version CMake passes in. */
#include "gcformats.h"

#ifndef GC_FORMATS_VERSION
#define GC_FORMATS_VERSION "unknown"
#endif

const char *gc_formats_version(void)
{
    return GC_FORMATS_VERSION;
}
