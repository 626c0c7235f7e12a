/* Shared by C and GLSL: the viewer's reference grid (an opaque mesh drawn before the splats). */
#ifndef GRID_SHARED_H
#define GRID_SHARED_H

#define GRID_LINES 21 /* per direction: 2 * GRID_LINES lines, 4 * GRID_LINES vertices */

#ifdef VULKAN
#define GRID_VEC4 vec4
#define GRID_MAT4 mat4
#else
typedef struct { float v[4]; } grid_vec4;
typedef struct { float m[16]; } grid_mat4;
#define GRID_VEC4 grid_vec4
#define GRID_MAT4 grid_mat4
#endif

struct grid_push {
  GRID_MAT4 view_proj; /* world -> clip, the same projection as the splats' depth */
  GRID_VEC4 origin;    /* the grid's centre */
  GRID_VEC4 u, v;      /* half extents along its two axes */
};

#endif
