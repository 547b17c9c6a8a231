typedef int gc_raster_placeholder;
