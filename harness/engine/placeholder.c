typedef int gc_engine_placeholder;
