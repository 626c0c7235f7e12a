/* Argument checks that the sort and the depth stage share: buffer ranges (present, aligned,
 * large enough, no wrap-around, none written sharing bytes with another), timestamp query
 * ranges, allocation callbacks and finite floats. Each logs what is wrong, naming the call and
 * the argument, and returns false; the caller then records nothing. */
#include "sort_internal.h"

#include <math.h>

/* offset + n without wrapping past 2^64 - 1. */
static bool fits(VkDeviceSize offset, VkDeviceSize n) { return n <= ~(VkDeviceSize)0 - offset; }

static bool check_one(const ssvk_device *vk, const char *fn, const ss_range *r) {
  const splatsort_buffer *b = &r->b;
  bool size_wraps = b->size != VK_WHOLE_SIZE && !fits(b->offset, b->size);
  if (b->buffer == VK_NULL_HANDLE) {
    ssvk_log(vk, "%s: %s.buffer is VK_NULL_HANDLE", fn, r->name);
  } else if (b->offset % r->align) {
    ssvk_log(vk, "%s: %s.offset %llu is not a multiple of %llu", fn, r->name, (unsigned long long)b->offset,
             (unsigned long long)r->align);
  } else if (size_wraps || !fits(b->offset, r->need)) {
    ssvk_log(vk, "%s: %s.offset %llu + %s %llu wraps around past 2^64", fn, r->name, (unsigned long long)b->offset,
             size_wraps ? "size" : "the bytes it needs", (unsigned long long)(size_wraps ? b->size : r->need));
  } else if (b->size != VK_WHOLE_SIZE && b->size < r->need) {
    ssvk_log(vk, "%s: %s.size %llu is below the %llu bytes this call needs%s", fn, r->name,
             (unsigned long long)b->size, (unsigned long long)r->need,
             b->size == 0 ? " (give the range's size, or VK_WHOLE_SIZE)" : "");
  } else {
    return true;
  }
  return false;
}

/* The bytes a and b use share at least one byte of one VkBuffer. */
static bool overlap(const ss_range *a, const ss_range *b) {
  return a->b.buffer == b->b.buffer && a->need && b->need && a->b.offset < b->b.offset + b->need &&
         b->b.offset < a->b.offset + a->need;
}

bool ss_check_ranges(const ssvk_device *vk, const char *fn, const ss_range *r, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (!check_one(vk, fn, &r[i])) return false;
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t j = i + 1; j < n; j++) {
      if ((!r[i].written && !r[j].written) || !overlap(&r[i], &r[j])) continue;
      ssvk_log(vk,
               "%s: %s (bytes %llu..%llu) and %s (bytes %llu..%llu) overlap in one VkBuffer; a range the call "
               "writes must share no byte with another",
               fn, r[i].name, (unsigned long long)r[i].b.offset, (unsigned long long)(r[i].b.offset + r[i].need - 1),
               r[j].name, (unsigned long long)r[j].b.offset, (unsigned long long)(r[j].b.offset + r[j].need - 1));
      return false;
    }
  }
  return true;
}

bool ss_check_queries(const ssvk_device *vk, const char *fn, VkQueryPool pool, uint32_t first, uint32_t count,
                      uint32_t pool_size) {
  if (!pool) return true;
  if (count > UINT32_MAX - first) {
    ssvk_log(vk, "%s: first_query %u + the %u timestamps it writes wraps around past 2^32", fn, first, count);
    return false;
  }
  if (pool_size && first + count > pool_size) {
    ssvk_log(vk, "%s: first_query %u + the %u timestamps it writes is beyond query_count %u (the pool's size)", fn,
             first, count, pool_size);
    return false;
  }
  return true;
}

bool ss_check_allocator(ssvk_log_fn log, void *user, const char *fn, const VkAllocationCallbacks *a) {
  if (!a) return true;
  const char *missing = !a->pfnAllocation     ? "pfnAllocation"
                        : !a->pfnReallocation ? "pfnReallocation"
                        : !a->pfnFree         ? "pfnFree"
                                              : NULL;
  if (missing) {
    ssvk_log_to(log, user, "%s: allocator->%s is NULL (Vulkan requires all three allocation functions)", fn, missing);
    return false;
  }
  if (!a->pfnInternalAllocation != !a->pfnInternalFree) {
    ssvk_log_to(log, user, "%s: allocator: pfnInternalAllocation and pfnInternalFree must be both NULL or both set",
                fn);
    return false;
  }
  return true;
}

bool ss_check_finite(const ssvk_device *vk, const char *fn, const char *name, const float *v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (isfinite(v[i])) continue;
    if (n > 1)
      ssvk_log(vk, "%s: %s[%u] is %g, not a finite number", fn, name, i, (double)v[i]);
    else
      ssvk_log(vk, "%s: %s is %g, not a finite number", fn, name, (double)v[i]);
    return false;
  }
  return true;
}

bool ss_check_sort_info(const splatsort *s, const splatsort_sort_info *info, uint32_t max_count) {
  static const char fn[] = "splatsort_cmd_sort";
  const ssvk_device *vk = &s->vk;
  if (info->next) {
    ssvk_log(vk, "%s: next must be NULL", fn);
    return false;
  }
  if (info->max_count == 0 || info->max_count > max_count) {
    ssvk_log(vk, "%s: max_count %u is outside 1..%u", fn, info->max_count, max_count);
    return false;
  }
  if (info->key_bits > 32) {
    ssvk_log(vk, "%s: key_bits %u is above 32", fn, info->key_bits);
    return false;
  }
  bool indirect = info->count_buffer.buffer != VK_NULL_HANDLE;
  if (!indirect && info->count > info->max_count) {
    ssvk_log(vk, "%s: count %u is above max_count %u", fn, info->count, info->max_count);
    return false;
  }
  bool keys_only = !info->values.buffer && !info->tmp_values.buffer;
  if (!keys_only && (!info->values.buffer || !info->tmp_values.buffer)) {
    ssvk_log(vk, "%s: %s.buffer is VK_NULL_HANDLE (a keys-only sort leaves out both values and tmp_values)", fn,
             info->values.buffer ? "tmp_values" : "values");
    return false;
  }
  VkDeviceSize align = s->dev.storage_alignment, kv = 4ull * info->max_count;
  /* every range but the count is written: the input pair too, by the odd passes */
  ss_range r[6] = {{"keys", info->keys, align, kv, true},
                   {"tmp_keys", info->tmp_keys, align, kv, true},
                   {"internal", info->internal, align, s->ops->internal_size(s, info->max_count), true}};
  uint32_t n = 3;
  if (!keys_only) {
    r[n++] = (ss_range){"values", info->values, align, kv, true};
    r[n++] = (ss_range){"tmp_values", info->tmp_values, align, kv, true};
  }
  if (indirect) r[n++] = (ss_range){"count_buffer", info->count_buffer, 4, 4, false};
  if (!ss_check_ranges(vk, fn, r, n)) return false;
  uint32_t bits = info->key_bits ? info->key_bits : 32;
  return ss_check_queries(vk, fn, info->query_pool, info->first_query, s->ops->timestamp_count(bits),
                          info->query_count);
}
