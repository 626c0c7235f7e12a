// Work-efficient (Blelloch) exclusive scan of 512 uints by 256 threads, two values each,
// in shared memory padded by one word per 32 so that the tree's strided accesses fall
// in different banks.
#define SCAN_PAD(i) ((i) + ((i) >> 5))
shared uint scan_tmp[512 + 16];
shared uint scan_total;

// In: a (element t), b (element t + 256). Out: their exclusive prefixes; returns the total.
uint scan512(inout uint a, inout uint b) {
  uint t = gl_LocalInvocationID.x;
  scan_tmp[SCAN_PAD(t)] = a;
  scan_tmp[SCAN_PAD(t + 256)] = b;
  uint offset = 1;
  for (uint d = 256; d > 0; d >>= 1) {
    barrier();
    if (t < d) {
      uint ai = offset * (2 * t + 1) - 1;
      uint bi = offset * (2 * t + 2) - 1;
      scan_tmp[SCAN_PAD(bi)] += scan_tmp[SCAN_PAD(ai)];
    }
    offset <<= 1;
  }
  barrier();
  if (t == 0) {
    scan_total = scan_tmp[SCAN_PAD(511)];
    scan_tmp[SCAN_PAD(511)] = 0;
  }
  for (uint d = 1; d < 512; d <<= 1) {
    offset >>= 1;
    barrier();
    if (t < d) {
      uint ai = offset * (2 * t + 1) - 1;
      uint bi = offset * (2 * t + 2) - 1;
      uint x = scan_tmp[SCAN_PAD(ai)];
      scan_tmp[SCAN_PAD(ai)] = scan_tmp[SCAN_PAD(bi)];
      scan_tmp[SCAN_PAD(bi)] += x;
    }
  }
  barrier();
  a = scan_tmp[SCAN_PAD(t)];
  b = scan_tmp[SCAN_PAD(t + 256)];
  uint total = scan_total;
  barrier(); // scan_tmp may be reused right after
  return total;
}

// Three 10-bit counters packed in one word (digits 0..2; digit 3 is what remains):
// a chunk has at most 512 elements, so no field overflows.
uint digit_bit(uint d) { return d < 3 ? 1u << (10 * d) : 0u; }
uint digit_field(uint packed, uint d) { return (packed >> (10 * d)) & 1023u; }
