// What the odd-even merge sort's kernels share: the element count and the comparator.
#include "merge_shared.h"

uint merge_count(merge_push p, uint header_count) { return p.indirect != 0 ? header_count : p.count; }

// True when (key a, position a) sorts after (key b, position b): the network's only question.
// Positions are distinct, so no two elements are ever equal and the result is the stable order.
bool merge_after(uint ka, uint ia, uint kb, uint ib, uint mask) {
  uint ma = ka & mask, mb = kb & mask;
  return ma > mb || (ma == mb && ia > ib);
}
