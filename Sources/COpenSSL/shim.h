// The one shim header of the OpenSSL system-library target.
//
// Swift imports OpenSSL's functions directly; what it cannot import (function-like macros, the typed
// STACK_OF helpers and composite constants) is wrapped here as `static inline` functions and `static const`
// values with a `copenssl_` prefix: one-line wrappers only. Helpers with logic of their own (the PKCS#12
// iteration scan, the RSA context set-up, the error-queue scan) are real C in the CTVEOpenSSL target.
#ifndef TVEKIT_COPENSSL_SHIM_H
#define TVEKIT_COPENSSL_SHIM_H

#include <openssl/opensslv.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/pkcs7.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <time.h>

#if OPENSSL_VERSION_MAJOR < 3
#error "TVEKit needs OpenSSL 3.0 or newer (libssl-dev 3.x)"
#endif

// MARK: memory and BIO macros

static inline void copenssl_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

static inline long copenssl_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// MARK: STACK_OF(X509)

static inline int copenssl_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }

static inline X509 *copenssl_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

static inline void copenssl_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

// MARK: error queue


// MARK: composite constants

static const unsigned long copenssl_XN_FLAG_RFC2253 = XN_FLAG_RFC2253;

// MARK: OSSL_PARAM builders without varargs or macro arguments

static inline OSSL_PARAM copenssl_param_uint(const char *key, unsigned int *value) {
    return OSSL_PARAM_construct_uint(key, value);
}

static inline OSSL_PARAM copenssl_param_end(void) { return OSSL_PARAM_construct_end(); }

// MARK: string literals with static storage
//
// Some OpenSSL 3 constructors keep the `const char *` they are given instead of copying it:
// OSSL_DECODER_CTX_new_for_pkey keeps input_type and reads it later in OSSL_DECODER_from_data, and
// EVP_PKEY_CTX_new_from_name keeps keytype. A C string that Swift makes from a String lives only for the call,
// so such arguments must come from here.

static inline const char *copenssl_literal_DER(void) { return "DER"; }
static inline const char *copenssl_literal_PEM(void) { return "PEM"; }
static inline const char *copenssl_literal_RSA(void) { return "RSA"; }

// MARK: key selections (composite macros)

static const int copenssl_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;
static const int copenssl_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;

#endif
