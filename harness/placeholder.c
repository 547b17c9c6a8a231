/* placeholder so gc_harness has a source until the first command lands */
typedef int gc_harness_placeholder;
