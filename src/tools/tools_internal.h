/* tools_internal.h: pieces the tools' own files share (not for applications). */
#ifndef SPLAT_TOOLS_INTERNAL_H
#define SPLAT_TOOLS_INTERNAL_H

#include <stddef.h>

/* The k-th smallest of v[0..n) (k < n; quickselect with a three-way partition; reorders v so that
 * v[k] holds it, smaller ones before, larger after; no NaN). view_control.c. */
float splat_select_kth(float *v, size_t n, size_t k);

#endif
