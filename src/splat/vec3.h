/* vec3.h: the few 3-vector helpers the camera code needs (private to splat and its tools). */
#ifndef SPLAT_VEC3_H
#define SPLAT_VEC3_H

#include <math.h>
#include <string.h>

static inline float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void cross3(const float a[3], const float b[3], float out[3]) {
  float r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  memcpy(out, r, sizeof r);
}

static inline float length3(const float a[3]) { return sqrtf(dot3(a, a)); }

static inline int finite3(const float a[3]) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

#endif
