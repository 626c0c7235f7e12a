#version 450
// The splat quads (splat_vertex.glsl), both eyes in one draw through VK_KHR_multiview.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_multiview : require
#define SP_MULTIVIEW 1
#include "splat_vertex.glsl"
