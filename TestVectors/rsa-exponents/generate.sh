#!/usr/bin/env bash
# Regenerates the RSA keys with unusual public exponents and modulus sizes that RSAExponentTests sign and verify
# with, to hold TVEKit's own public-key exponentiation (square-and-multiply over Montgomery multiplications) to
# OpenSSL's private-key operation. Run from anywhere: bash TestVectors/rsa-exponents/generate.sh (openssl 3).
# The keys are committed so the test suite never depends on the openssl binary. Throw-away test keys only.
set -euo pipefail
cd "$(dirname "$0")"
key() {  # name bits exponent
  openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:$2" -pkeyopt "rsa_keygen_pubexp:$3" -out "$1.pem" 2>/dev/null
}
key e3-1024 1024 3                                  # the smallest exponent: one squaring, one multiplication
key e17-2048 2048 17                                # bits 4 and 0
key e65537-2080 2080 65537                          # a modulus whose top 64-bit word is half full
key e65537-1032 1032 65537                          # a modulus of 1032 bits: 17 words, not a multiple of 8
key e2pow32plus15-1536 1536 4294967311              # 33 bits: 2^32 + 15, four low bits set
key e64ones-2048 2048 18446744073709551615          # 64 bits, every one set: a multiplication per bit
key e64top-1024 1024 9223372036854775809            # 64 bits: 2^63 + 1, the longest run of zero bits
