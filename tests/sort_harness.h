/* Shared by the sort tests and sortbench: key distributions, the O(n) result check and GPU
 * buffers laid out the way a host renderer would (one buffer, four regions); with them the CPU
 * reference sort (ref_sort.h) and util.h. */
#ifndef SORT_HARNESS_H
#define SORT_HARNESS_H

#include "ref_sort.h" /* cpu_sort_pairs */
#include "splatsort.h"
#include "util.h" /* splitmix64, parse_size_list */
#include "vkh.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum key_dist {
  DIST_UNIFORM,
  DIST_EQUAL,
  DIST_SORTED,
  DIST_REVERSE,
  DIST_FEW_UNIQUE,
  DIST_TOP_BITS,
  DIST_BOTTOM_BITS,
  DIST_FLOAT_DEPTH,
  DIST_COUNT
} key_dist;

const char *key_dist_name(key_dist d);
/* A tool's --algo list, "quaternary,onesweep,radix16,merge[,auto]" or "all" (the four, not
 * auto), into out in the order given, at most max. Returns how many, or 0 after a message that
 * names `tool` and what is wrong. */
uint32_t sort_algorithms_parse(const char *tool, const char *text, bool allow_auto, splatsort_algorithm *out,
                               uint32_t max);
/* Returns DIST_COUNT when the name is unknown. */
key_dist key_dist_parse(const char *name);
void gen_keys(uint32_t *keys, uint32_t n, key_dist dist, uint64_t seed);
/* Maps a float to a uint32 whose unsigned order is the float order (negatives included). */
uint32_t float_to_sortable(float f);


/* Checks that (out_keys, out_values) is the stable sort by the low key_bits bits of keys paired
 * with the values 0..n-1 (each value the element's input index), in O(n) time and without
 * sorting on the CPU: the values must be a permutation, each key the input key of its value,
 * and (masked key, value) strictly increasing. That output is unique, so this is exactly
 * comparing with cpu_sort_pairs(). Returns the first bad position, or n when it is right. */
uint32_t check_sorted_indices(const uint32_t *keys, uint32_t n, uint32_t key_bits, const uint32_t *out_keys,
                              const uint32_t *out_values);

typedef struct sort_buffers {
  uint32_t max_count;
  VkDeviceSize pad;            /* offset of the first region (tests non-zero offsets) */
  VkDeviceSize region;         /* bytes per region, aligned */
  splatsort_memory_requirements req;
  vkh_buffer keyvals;          /* keys | values | tmp_keys | tmp_values */
  vkh_buffer internal;
  vkh_buffer count;            /* indirect count, a few words */
  splatsort_sort_info info;    /* filled for a direct sort of max_count, 32 bits */
} sort_buffers;

/* pad_units: the regions start pad_units * alignment bytes into the buffer. */
void sort_buffers_create(vkh_context *ctx, splatsort *sorter, uint32_t max_count, uint32_t pad_units,
                         bool host_visible, sort_buffers *b);
void sort_buffers_destroy(vkh_context *ctx, sort_buffers *b);
/* Byte offset of region r (0 keys, 1 values, 2 tmp keys, 3 tmp values) in keyvals. */
VkDeviceSize sort_region(const sort_buffers *b, uint32_t r);

/* Parses a tuning string "wg=256,keys=12,spin=1024,window=4,hu=8,hc=1,sg=32,wide=1,stats=1,early=1,
 * two=1,variant=N,maxx=N" into *t (type set, unnamed fields 0). Returns false with a message in err. */
bool sort_tuning_parse(const char *text, splatsort_onesweep_tuning *t, char *err, size_t err_size);
/* The tuning in SPLATSORT_ONESWEEP_TUNING (tests/bench/ab_onesweep.sh sets it), or NULL when
 * unset; a bad string exits with its message. */
splatsort_onesweep_tuning *sort_tuning_from_env(void);
/* sort_create_or_die with an explicit tuning (NULL: none) instead of the environment's. */
splatsort *sort_create_tuned_or_die(vkh_context *ctx, splatsort_algorithm algorithm, uint32_t flags,
                                    const splatsort_onesweep_tuning *tuning);
splatsort *sort_create_or_die(vkh_context *ctx, splatsort_algorithm algorithm, uint32_t flags);

#endif
