// The one shim header of the OpenSSL system-library target.
//
// Swift imports OpenSSL's functions directly; what it cannot import (function-like macros, the typed
// STACK_OF helpers and composite constants) is wrapped here as `static inline` functions and `static const`
// values with a `copenssl_` prefix. Nothing here allocates or keeps state.
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

static inline int copenssl_ERR_GET_LIB(unsigned long code) { return ERR_GET_LIB(code); }
static inline int copenssl_ERR_GET_REASON(unsigned long code) { return ERR_GET_REASON(code); }

// MARK: composite constants

static const unsigned long copenssl_XN_FLAG_RFC2253 = XN_FLAG_RFC2253;

// MARK: OSSL_PARAM builders without varargs or macro arguments

static inline OSSL_PARAM copenssl_param_uint(const char *key, unsigned int *value) {
    return OSSL_PARAM_construct_uint(key, value);
}

static inline OSSL_PARAM copenssl_param_end(void) { return OSSL_PARAM_construct_end(); }

// MARK: key selections (composite macros)

static const int copenssl_EVP_PKEY_KEYPAIR = EVP_PKEY_KEYPAIR;
static const int copenssl_EVP_PKEY_PUBLIC_KEY = EVP_PKEY_PUBLIC_KEY;

// MARK: RSA context helpers

/// Turns off implicit rejection for PKCS#1 v1.5 decryption (OpenSSL >= 3.2 returns random bytes instead of an
/// error by default). Providers ignore parameters they do not know, so on 3.0 and 3.1 this is a no-op that
/// succeeds. The key is a string literal, so the OSSL_PARAM never points at a temporary.
static inline int copenssl_rsa_disable_implicit_rejection(EVP_PKEY_CTX *ctx) {
    unsigned int zero = 0;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_uint("implicit-rejection", &zero);
    params[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(ctx, params);
}

/// Sets an OAEP label; OpenSSL takes ownership of an OPENSSL_malloc'ed copy.
static inline int copenssl_rsa_set_oaep_label(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length) {
    if (length == 0) return 1;
    void *copy = OPENSSL_memdup(label, length);
    if (copy == NULL) return 0;
    int result = EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, copy, (int)length);
    if (result <= 0) OPENSSL_free(copy);
    return result;
}

/// A passphrase callback that refuses, so that OpenSSL never prompts on a terminal for an encrypted key.
static int copenssl_refuse_passphrase(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return -1;
}

static inline int copenssl_decoder_refuse_passphrase(OSSL_DECODER_CTX *ctx) {
    return OSSL_DECODER_CTX_set_pem_password_cb(ctx, copenssl_refuse_passphrase, NULL);
}

// MARK: time

static inline long long copenssl_timegm(struct tm *value) { return (long long)timegm(value); }

#endif
