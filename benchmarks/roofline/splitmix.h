/* The random numbers of both roofline loops, as the core draws them (core/splitmix.pxd):
 * splitmix64, and a uniform draw below n by the high half of a 128-bit product. */
#ifndef ROOFLINE_SPLITMIX_H
#define ROOFLINE_SPLITMIX_H
#include <stdint.h>

static uint64_t next_random(uint64_t *state) { /* splitmix64 */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int below(uint64_t *state, int n) { return (int)(((unsigned __int128)next_random(state) * (unsigned)n) >> 64); }

#endif
