/* splatview --convert: one scene file rewritten in another format, without a GPU. */
#ifndef SPLATVIEW_CONVERT_H
#define SPLATVIEW_CONVERT_H

#include <stdbool.h>

/* Loads `in` (any format splat_scene_load reads) and writes it to `out` as .ply or .spz, by
 * out's extension. With `lod`, first builds the level-of-detail tree (splat_lod_build, on every
 * core), which reorders the splats, writes the scene in that order and the tree to "<out>.lod",
 * and prints a second line (leaves, interior nodes, levels; build and write times). Prints one
 * line saying what it did (splats, sizes, times) on stdout, or the error on stderr. Returns the
 * exit status: 0, or 1 when loading, building or writing failed. */
int splatview_convert(const char *in, const char *out, bool lod);

#endif
