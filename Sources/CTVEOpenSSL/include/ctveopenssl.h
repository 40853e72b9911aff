// Helpers over OpenSSL with logic of their own, in real C (the COpenSSL module map keeps only one-line wrappers of
// what Swift cannot import). Names keep the `copenssl_` prefix.
#ifndef TVEKIT_CTVEOPENSSL_H
#define TVEKIT_CTVEOPENSSL_H

#include <openssl/evp.h>
#include <openssl/decoder.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>
#include <openssl/bn.h>
#include <limits.h>
#include <time.h>

/// Turns off implicit rejection for PKCS#1 v1.5 decryption (OpenSSL >= 3.2 returns random bytes instead of an
/// error by default). Providers ignore parameters they do not know, so on 3.0 and 3.1 this is a no-op that
/// succeeds.
int copenssl_rsa_disable_implicit_rejection(EVP_PKEY_CTX *ctx);

/// Sets an OAEP label; OpenSSL takes ownership of an OPENSSL_malloc'ed copy.
int copenssl_rsa_set_oaep_label(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length);

/// Installs a passphrase callback that refuses, so that OpenSSL never prompts on a terminal for an encrypted key.
int copenssl_decoder_refuse_passphrase(OSSL_DECODER_CTX *ctx);

#define COPENSSL_PBE_UNBOUNDED LONG_MAX

/// The iteration count of an EncryptedPrivateKeyInfo (PKCS#8); 0 when unreadable, COPENSSL_PBE_UNBOUNDED for a
/// key-derivation function whose cost is not an iteration count (scrypt).
long copenssl_x509_sig_iterations(const X509_SIG *sig);

/// The highest iteration count a PKCS#12 file asks for: its MAC, its encrypted safes and its shrouded key bags.
/// Encrypted safes are opened with `password` only after their own count was found to be within `limit`. Stops
/// early and returns the offending count as soon as one exceeds `limit`. Allocates and frees what it opens.
long copenssl_pkcs12_max_iterations(PKCS12 *p12, const char *password, long limit);

/// Whether the thread's error queue holds an "unsupported algorithm" entry. Empties the queue.
int copenssl_drain_errors_has_unsupported(void);

/// The modulus and public exponent of an RSA key, as new BIGNUMs the caller frees. 1 on success.
int copenssl_rsa_public_numbers(const EVP_PKEY *key, BIGNUM **modulus, BIGNUM **exponent);

/// timegm(3).
long long copenssl_timegm(struct tm *value);

#endif
