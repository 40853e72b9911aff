// Vector Base64 decoding (the standard alphabet), after the method of W. Muła and D. Lemire, "Faster Base64 Encoding
// and Decoding Using AVX2 Instructions" (ACM TWEB 2018): each symbol's high and low nibbles index two 16-entry tables
// whose AND is zero exactly for the 64 alphabet symbols; a third table, indexed by the high nibble (less one for '/'),
// gives what to add to each symbol for its 6-bit value; two multiply-adds pack four values into 24 bits, and a byte
// shuffle gathers the three bytes of each group. Only x86-64 has an implementation; elsewhere nothing is decoded here.
#include "ctvebase64.h"

#include <stdatomic.h>

#if defined(__x86_64__)
#include <immintrin.h>

// The tables, for the 16 values of a nibble (see the file's comment). lut_lo: bits that are set for a low nibble;
// lut_hi: the bit of each high nibble (0x10 for nibbles that hold no symbol at all: 0, 1 and 8 to 15).
#define TVE_LUT_LO 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A
#define TVE_LUT_HI 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10
// What to add to a symbol, by its high nibble (index 1 is '/': 0x2F + 16 = 63).
#define TVE_LUT_ROLL 0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0
// The three bytes of each 32-bit lane, most significant first; the last four bytes of each 128-bit lane zero.
#define TVE_PACK 2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1

__attribute__((target("avx2"))) static size_t decode_avx2(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    const __m256i lut_lo = _mm256_setr_epi8(TVE_LUT_LO, TVE_LUT_LO);
    const __m256i lut_hi = _mm256_setr_epi8(TVE_LUT_HI, TVE_LUT_HI);
    const __m256i lut_roll = _mm256_setr_epi8(TVE_LUT_ROLL, TVE_LUT_ROLL);
    const __m256i pack = _mm256_setr_epi8(TVE_PACK, TVE_PACK);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    const __m256i slash = _mm256_set1_epi8(0x2F);
    const __m256i merge_pairs = _mm256_set1_epi32(0x01400140);
    const __m256i merge_quads = _mm256_set1_epi32(0x00011000);
    size_t read = 0, written = 0;
    while (count - read >= 32 && capacity - written >= 32) {
        const __m256i symbols = _mm256_loadu_si256((const __m256i *)(input + read));
        const __m256i high = _mm256_and_si256(_mm256_srli_epi32(symbols, 4), nibble);
        const __m256i low = _mm256_and_si256(symbols, nibble);
        const __m256i invalid = _mm256_and_si256(_mm256_shuffle_epi8(lut_lo, low), _mm256_shuffle_epi8(lut_hi, high));
        if (!_mm256_testz_si256(invalid, invalid)) break;
        const __m256i roll = _mm256_shuffle_epi8(lut_roll, _mm256_add_epi8(_mm256_cmpeq_epi8(symbols, slash), high));
        const __m256i values = _mm256_add_epi8(symbols, roll);
        const __m256i pairs = _mm256_maddubs_epi16(values, merge_pairs);
        const __m256i quads = _mm256_madd_epi16(pairs, merge_quads);
        const __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(quads, pack), lanes);
        _mm256_storeu_si256((__m256i *)(output + written), bytes);
        read += 32;
        written += 24;
    }
    return read;
}

__attribute__((target("ssse3"))) static size_t decode_ssse3(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    const __m128i lut_lo = _mm_setr_epi8(TVE_LUT_LO);
    const __m128i lut_hi = _mm_setr_epi8(TVE_LUT_HI);
    const __m128i lut_roll = _mm_setr_epi8(TVE_LUT_ROLL);
    const __m128i pack = _mm_setr_epi8(TVE_PACK);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m128i slash = _mm_set1_epi8(0x2F);
    const __m128i merge_pairs = _mm_set1_epi32(0x01400140);
    const __m128i merge_quads = _mm_set1_epi32(0x00011000);
    size_t read = 0, written = 0;
    while (count - read >= 16 && capacity - written >= 16) {
        const __m128i symbols = _mm_loadu_si128((const __m128i *)(input + read));
        const __m128i high = _mm_and_si128(_mm_srli_epi32(symbols, 4), nibble);
        const __m128i low = _mm_and_si128(symbols, nibble);
        const __m128i invalid = _mm_and_si128(_mm_shuffle_epi8(lut_lo, low), _mm_shuffle_epi8(lut_hi, high));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(invalid, _mm_setzero_si128())) != 0xFFFF) break;
        const __m128i roll = _mm_shuffle_epi8(lut_roll, _mm_add_epi8(_mm_cmpeq_epi8(symbols, slash), high));
        const __m128i values = _mm_add_epi8(symbols, roll);
        const __m128i pairs = _mm_maddubs_epi16(values, merge_pairs);
        const __m128i quads = _mm_madd_epi16(pairs, merge_quads);
        _mm_storeu_si128((__m128i *)(output + written), _mm_shuffle_epi8(quads, pack));
        read += 16;
        written += 12;
    }
    return read;
}

static int detect_level(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return 2;
    if (__builtin_cpu_supports("ssse3")) return 1;
    return 0;
}

// -1 until the first call; threads that race on the first call store the same value.
static _Atomic int level_cache = -1;

int ctvebase64_level(void) {
    int level = atomic_load_explicit(&level_cache, memory_order_relaxed);
    if (level < 0) {
        level = detect_level();
        atomic_store_explicit(&level_cache, level, memory_order_relaxed);
    }
    return level;
}

size_t ctvebase64_decode_blocks(const uint8_t *input, size_t input_count, uint8_t *output, size_t output_capacity) {
    return ctvebase64_decode_blocks_up_to(2, input, input_count, output, output_capacity);
}

size_t ctvebase64_decode_blocks_up_to(
    int maximum_level, const uint8_t *input, size_t input_count, uint8_t *output, size_t output_capacity) {
    if (input == NULL || output == NULL) return 0;
    int level = ctvebase64_level();
    switch (level < maximum_level ? level : maximum_level) {
    case 2: {
        size_t read = decode_avx2(input, input_count, output, output_capacity);
        // The tail of fewer than 32 symbols: one 16-symbol step when it fits.
        size_t written = read / 4 * 3;
        return read + decode_ssse3(input + read, input_count - read, output + written, output_capacity - written);
    }
    case 1:
        return decode_ssse3(input, input_count, output, output_capacity);
    default:
        return 0;
    }
}

#else

#include <stddef.h>

int ctvebase64_level(void) { return 0; }

size_t ctvebase64_decode_blocks(const uint8_t *input, size_t input_count, uint8_t *output, size_t output_capacity) {
    return ctvebase64_decode_blocks_up_to(0, input, input_count, output, output_capacity);
}

size_t ctvebase64_decode_blocks_up_to(
    int maximum_level, const uint8_t *input, size_t input_count, uint8_t *output, size_t output_capacity) {
    (void)maximum_level;
    (void)input;
    (void)input_count;
    (void)output;
    (void)output_capacity;
    return 0;
}

#endif
