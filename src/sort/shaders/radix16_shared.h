/* Shared by C and GLSL: the radix16 sort's constants. Its push constants (struct
 * quaternary_push) and internal-buffer layout are the quaternary sort's (quaternary_shared.h),
 * with 16 counts per tile instead of 4 per chunk. */
#ifndef RADIX16_SHARED_H
#define RADIX16_SHARED_H

#define RADIX16_RADIX 16u
#define RADIX16_WORKGROUP 256u /* invocations per workgroup: scan512.glsl scans with exactly 256 */
#define RADIX16_MIN_SUBGROUP 4u
#define RADIX16_MAX_SUBGROUP 128u /* uvec4 ballots */

/* Specialization constant ids (count and scatter kernels). */
#define RADIX16_SPEC_KEYS 0u            /* keys per invocation; tile = 256 * keys */
#define RADIX16_SPEC_MAX_SUBGROUPS 1u   /* scatter: upper bound on gl_NumSubgroups */
#define RADIX16_SPEC_DIGITS_PER_LANE 2u /* count: digits each lane counts, ceil(16 / smallest subgroup) */

#endif
