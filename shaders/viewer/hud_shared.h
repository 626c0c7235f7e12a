/* Shared by C and GLSL: the HUD's vertex layout and push constants. */
#ifndef HUD_SHARED_H
#define HUD_SHARED_H

/* Vertices are stb_easy_font's: x, y, z floats then RGBA8, 16 bytes. */
#define HUD_VERTEX_STRIDE 16
#define HUD_VERTEX_COLOR_OFFSET 12

#ifdef VULKAN
#define HUD_VEC4 vec4
#else
typedef struct { float v[4]; } hud_vec4;
#define HUD_VEC4 hud_vec4
#endif

struct hud_push {
  /* NDC = position.xy * transform.xy + transform.zw (text units -> framebuffer NDC) */
  HUD_VEC4 transform;
};

#endif
