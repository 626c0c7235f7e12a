/* Shared by C and GLSL: the descriptor bindings of every sort pipeline (one push-descriptor
 * set): ping-pong input/output key and value buffers, the internal scratch buffer and the
 * caller's count buffer (the internal buffer again for direct sorts). */
#ifndef SORT_BINDINGS_H
#define SORT_BINDINGS_H

#define SS_BIND_KEYS_IN 0
#define SS_BIND_VALUES_IN 1
#define SS_BIND_KEYS_OUT 2
#define SS_BIND_VALUES_OUT 3
#define SS_BIND_INTERNAL 4
#define SS_BIND_COUNT 5
#define SS_BINDINGS 6 /* number of bindings: the set layout's and the descriptor array's size */

#endif
