#version 450
// Compute raster, pass 7 (craster_blend.glsl): into the renderer's image buffer.
#extension GL_GOOGLE_include_directive : require
#include "craster_blend.glsl"
