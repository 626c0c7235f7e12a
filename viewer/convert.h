/* splatview --convert: one scene file rewritten in another format, without a GPU. */
#ifndef SPLATVIEW_CONVERT_H
#define SPLATVIEW_CONVERT_H

/* Loads `in` (any format splat_scene_load reads) and writes it to `out` as .ply or .spz, by
 * out's extension. Prints one line saying what it did (splats, sizes, times) on stdout, or the
 * error on stderr. Returns the exit status: 0, or 1 when loading or writing failed. */
int splatview_convert(const char *in, const char *out);

#endif
