#version 450
// Compute raster, pass 7 (craster_blend.glsl, per-pixel order): over the host's rgba8 colour image, tested against its depth.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#define SP_CR_HOST_FORMAT rgba8
#define SP_CR_PER_PIXEL
#include "craster_blend.glsl"
