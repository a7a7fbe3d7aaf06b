#ifndef PUSHMOCK_BYTE_SCAN_H
#define PUSHMOCK_BYTE_SCAN_H

#include <stddef.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#if defined(__SSE2__) || defined(__ARM_NEON)
/// The bits a byte of `pushmock_flags16`'s mask takes.
#if defined(__SSE2__)
#define PUSHMOCK_FLAG_BITS 1
#else
#define PUSHMOCK_FLAG_BITS 4
#endif

/// The sixteen bytes at `p` compared at once: in the mask, the bits of each byte that is a
/// quote, a backslash, a control character (below 0x20) or, when `non_ascii` is not 0, 0x80
/// or above are set, the first byte's lowest.
static inline uint64_t pushmock_flags16(const uint8_t *p, int non_ascii) {
#if defined(__SSE2__)
    __m128i v = _mm_loadu_si128((const __m128i *)p);
    __m128i flags = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    // As signed bytes, those below 0x20 are the control characters and 0x80 and above; as
    // unsigned, a byte is below 0x20 when the smaller of it and 0x1F is itself.
    __m128i low = non_ascii ? _mm_cmplt_epi8(v, _mm_set1_epi8(0x20))
                            : _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v);
    return (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(flags, low));
#else
    uint8x16_t v = vld1q_u8(p);
    uint8x16_t flags = vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')), vceqq_u8(v, vdupq_n_u8('\\')));
    flags = vorrq_u8(flags, vcltq_u8(v, vdupq_n_u8(0x20)));
    if (non_ascii) flags = vorrq_u8(flags, vcgeq_u8(v, vdupq_n_u8(0x80)));
    // Each 16-bit lane shifted right by four and narrowed to a byte: four bits a byte.
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(flags), 4)), 0);
#endif
}
#endif

/// The place of the first byte from `start` to `count` in `bytes` that a JSON string must
/// look at: a quote, a backslash, a control character and, when `non_ascii` is not 0, a byte
/// of 0x80 or above; `count` when there is none. A string that needs no decoding ends there,
/// at its closing quote. Sixteen bytes are compared at once with the processor's vector
/// instructions (SSE2, NEON), which Swift cannot spell: its SIMD types compare them a lane at
/// a time. The last sixteen read end with the last byte (they may overlap the ones before,
/// whose flags are dropped), so only a buffer shorter than sixteen is read a byte at a time.
static inline size_t pushmock_plain_end(const uint8_t *bytes, size_t start, size_t count, int non_ascii) {
    size_t i = start;
#if defined(__SSE2__) || defined(__ARM_NEON)
    if (count >= 16) {
        while (i < count) {
            size_t block = i + 16 <= count ? i : count - 16;
            uint64_t mask = pushmock_flags16(bytes + block, non_ascii);
            // Bytes before `i` in an overlapping last block were read already.
            mask &= ~(uint64_t)0 << ((i - block) * PUSHMOCK_FLAG_BITS);
            if (mask) return block + (size_t)__builtin_ctzll(mask) / PUSHMOCK_FLAG_BITS;
            i = block + 16;
        }
        return count;
    }
#endif
    for (; i < count; i++) {
        uint8_t c = bytes[i];
        if (c == '"' || c == '\\' || c < 0x20 || (non_ascii && c >= 0x80)) return i;
    }
    return count;
}

#endif
