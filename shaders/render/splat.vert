#version 450
// The splat quads (splat_vertex.glsl).
#extension GL_GOOGLE_include_directive : require
#include "splat_vertex.glsl"
