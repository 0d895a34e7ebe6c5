# splitmix64 (Steele, Lea and Flood), the one random number generator of every ruleset.
#
# Small, fast and easy to write again in plain Python (core/poison/reference.py's `Random` and
# `stream_seed`), so that a seed deals and plays the same game in a compiled core and in
# its reference. Inline C only: a module that cimports these compiles its own copy, and no
# Python object is ever touched.

from libc.stdint cimport uint8_t, uint32_t, uint64_t


cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t stream_seed(uint64_t seed, uint64_t stream) noexcept nogil:
    """An independent seed for one use of `seed` (a deal, a bot's choices)."""
    return mix64(seed + stream * 0x9E3779B97F4A7C15ULL)     # the golden gamma


cdef inline uint64_t next_random(uint64_t* state) noexcept nogil:
    state[0] += 0x9E3779B97F4A7C15ULL                       # the golden gamma
    return mix64(state[0])


cdef inline uint32_t random_below(uint64_t* state, uint32_t n) noexcept nogil:
    # The top 32 bits scaled to [0, n): no division, and the bias (< n / 2**32) is nil here.
    return <uint32_t>(((next_random(state) >> 32) * n) >> 32)


cdef inline void shuffle(uint8_t* items, int n, uint64_t* state) noexcept nogil:
    """Fisher–Yates, from the last item down: the one shuffle of every deck and deal."""
    cdef int i, j
    cdef uint8_t swap
    for i in range(n - 1, 0, -1):
        j = random_below(state, <uint32_t>(i + 1))
        swap = items[i]
        items[i] = items[j]
        items[j] = swap
