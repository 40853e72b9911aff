// Base64 decoding of whole blocks of alphabet symbols with the processor's vector instructions, in real C: the fast
// first stage of TVECrypto's strict decoder (Base64.swift), which checks and decodes everything these functions leave.
#ifndef TVEKIT_CTVEBASE64_H
#define TVEKIT_CTVEBASE64_H

#include <stddef.h>
#include <stdint.h>

/// Which implementation `ctvebase64_decode_blocks` uses on this processor: 2 for AVX2 (32 symbols per step), 1 for
/// SSSE3 (16), 0 for none (it then decodes nothing). Decided once, on the first call.
int ctvebase64_level(void);

/// Decodes standard Base64 (RFC 4648 §4 alphabet) from `input` into `output` in blocks, and stops before the first
/// block that holds any byte outside the 64 symbols (`=`, whitespace, anything else), before a block that would leave
/// fewer than 32 bytes of room in `output` after the bytes written, or when fewer than a block's bytes remain.
///
/// Returns the number of input bytes consumed (a multiple of 16, so always a whole number of 4-symbol groups); the
/// bytes written are 3/4 of it. Nothing is checked beyond the alphabet: padding, the end and the error offsets are
/// left to the caller's exact decoder, which goes on from the returned position. The stores may write up to 32 bytes
/// at the current output position, never past `output + output_capacity`.
size_t ctvebase64_decode_blocks(const uint8_t *input, size_t input_count, uint8_t *output, size_t output_capacity);

/// `ctvebase64_decode_blocks` with the implementation of at most `maximum_level` (for the tests of each one).
size_t ctvebase64_decode_blocks_up_to(
    int maximum_level, const uint8_t *input, size_t input_count, uint8_t *output, size_t output_capacity);

#endif
