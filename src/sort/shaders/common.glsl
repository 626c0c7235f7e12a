// Bindings and helpers shared by every sort shader.
#extension GL_GOOGLE_include_directive : require
#include "sort_bindings.h"

layout(std430, binding = SS_BIND_KEYS_IN) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = SS_BIND_VALUES_IN) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = SS_BIND_KEYS_OUT) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = SS_BIND_VALUES_OUT) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = SS_BIND_COUNT) readonly buffer CountBuf { uint count_buf[]; };

// Linear workgroup index of a dispatch split over x and y (x is capped by the device).
uint group_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Writes VkDispatchIndirectCommand for `groups` workgroups at word `at` of `buf`.
#define WRITE_DISPATCH(buf, at, groups, max_x)                            \
  {                                                                       \
    uint g_ = (groups);                                                   \
    uint x_ = min(g_, (max_x));                                           \
    buf[(at) + 0] = x_;                                                   \
    buf[(at) + 1] = x_ == 0 ? 0 : (g_ + x_ - 1) / x_;                     \
    buf[(at) + 2] = 1;                                                    \
  }
