#version 450
// Compute raster, pass 7 (craster_blend.glsl, per-pixel order): into the renderer's image buffer.
#extension GL_GOOGLE_include_directive : require
#define SP_CR_PER_PIXEL
#include "craster_blend.glsl"
