#include "ctveopenssl.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>

// MARK: RSA context helpers

/// Turns off implicit rejection for PKCS#1 v1.5 decryption (OpenSSL >= 3.2 returns random bytes instead of an
/// error by default). Providers ignore parameters they do not know, so on 3.0 and 3.1 this is a no-op that
/// succeeds. The key is a string literal, so the OSSL_PARAM never points at a temporary.
int copenssl_rsa_disable_implicit_rejection(EVP_PKEY_CTX *ctx) {
    unsigned int zero = 0;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_uint("implicit-rejection", &zero);
    params[1] = OSSL_PARAM_construct_end();
    return EVP_PKEY_CTX_set_params(ctx, params);
}

/// Sets an OAEP label; OpenSSL takes ownership of an OPENSSL_malloc'ed copy.
int copenssl_rsa_set_oaep_label(EVP_PKEY_CTX *ctx, const unsigned char *label, size_t length) {
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

int copenssl_decoder_refuse_passphrase(OSSL_DECODER_CTX *ctx) {
    return OSSL_DECODER_CTX_set_pem_password_cb(ctx, copenssl_refuse_passphrase, NULL);
}

// MARK: password-based encryption work limits
//
// PBKDF2 and PKCS#12 iteration counts come from the file. OpenSSL 3.0 caps none of them, so a hostile file with
// an iteration count of 2^31 keeps a core busy for minutes. These helpers read the counts before OpenSSL spends
// the work; the Swift side compares them with its documented limit.


/// The iteration count (work factor) of a password-based encryption algorithm: PBES2 with PBKDF2, or a PKCS#12 /
/// PKCS#5 v1 PBE. Returns 0 when the parameters cannot be read (OpenSSL then fails on them itself) and
/// COPENSSL_PBE_UNBOUNDED for PBES2 key-derivation functions whose cost is not an iteration count (scrypt).
static long copenssl_pbe_iterations(const X509_ALGOR *algorithm) {
    if (algorithm == NULL || algorithm->parameter == NULL) return 0;
    long iterations = 0;
    if (OBJ_obj2nid(algorithm->algorithm) == NID_pbes2) {
        PBE2PARAM *pbe2 = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBE2PARAM), algorithm->parameter);
        if (pbe2 == NULL) return 0;
        if (pbe2->keyfunc != NULL && OBJ_obj2nid(pbe2->keyfunc->algorithm) == NID_id_pbkdf2) {
            PBKDF2PARAM *kdf = pbe2->keyfunc->parameter == NULL ? NULL
                : ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBKDF2PARAM), pbe2->keyfunc->parameter);
            if (kdf != NULL && kdf->iter != NULL) iterations = ASN1_INTEGER_get(kdf->iter);
            PBKDF2PARAM_free(kdf);
        } else {
            iterations = COPENSSL_PBE_UNBOUNDED;
        }
        PBE2PARAM_free(pbe2);
    } else {
        PBEPARAM *pbe = ASN1_TYPE_unpack_sequence(ASN1_ITEM_rptr(PBEPARAM), algorithm->parameter);
        if (pbe != NULL && pbe->iter != NULL) iterations = ASN1_INTEGER_get(pbe->iter);
        PBEPARAM_free(pbe);
    }
    ERR_clear_error();
    return iterations < 0 ? COPENSSL_PBE_UNBOUNDED : iterations;
}

/// The iteration count of an EncryptedPrivateKeyInfo (PKCS#8).
long copenssl_x509_sig_iterations(const X509_SIG *sig) {
    const X509_ALGOR *algorithm = NULL;
    X509_SIG_get0(sig, &algorithm, NULL);
    return copenssl_pbe_iterations(algorithm);
}

static long copenssl_bags_max_iterations(const STACK_OF(PKCS12_SAFEBAG) *bags, long limit, int depth) {
    long highest = 0;
    for (int i = 0; bags != NULL && i < sk_PKCS12_SAFEBAG_num(bags) && highest <= limit; i++) {
        const PKCS12_SAFEBAG *bag = sk_PKCS12_SAFEBAG_value(bags, i);
        long count = 0;
        switch (PKCS12_SAFEBAG_get_nid(bag)) {
        case NID_pkcs8ShroudedKeyBag:
            count = copenssl_x509_sig_iterations(PKCS12_SAFEBAG_get0_pkcs8(bag));
            break;
        case NID_safeContentsBag:
            count = depth < 4 ? copenssl_bags_max_iterations(PKCS12_SAFEBAG_get0_safes(bag), limit, depth + 1)
                              : COPENSSL_PBE_UNBOUNDED;
            break;
        default:
            break;
        }
        if (count > highest) highest = count;
    }
    return highest;
}

/// The highest iteration count a PKCS#12 file asks for: its MAC, its encrypted safes and its shrouded key bags.
/// Encrypted safes are opened with `password` only after their own count was found to be within `limit`. Stops
/// early and returns the offending count as soon as one exceeds `limit`.
long copenssl_pkcs12_max_iterations(PKCS12 *p12, const char *password, long limit) {
    long highest = 0;
    const ASN1_INTEGER *mac_iterations = NULL;
    if (PKCS12_mac_present(p12)) {
        PKCS12_get0_mac(NULL, NULL, NULL, &mac_iterations, p12);
        highest = mac_iterations == NULL ? 1 : ASN1_INTEGER_get(mac_iterations);
        if (highest < 0 || highest > limit) return highest < 0 ? COPENSSL_PBE_UNBOUNDED : highest;
    }
    STACK_OF(PKCS7) *safes = PKCS12_unpack_authsafes(p12);
    if (safes == NULL) { ERR_clear_error(); return highest; }
    for (int i = 0; i < sk_PKCS7_num(safes) && highest <= limit; i++) {
        PKCS7 *safe = sk_PKCS7_value(safes, i);
        STACK_OF(PKCS12_SAFEBAG) *bags = NULL;
        int nid = OBJ_obj2nid(safe->type);
        if (nid == NID_pkcs7_data) {
            bags = PKCS12_unpack_p7data(safe);
        } else if (nid == NID_pkcs7_encrypted) {
            long count = 0;
            if (safe->d.encrypted != NULL && safe->d.encrypted->enc_data != NULL)
                count = copenssl_pbe_iterations(safe->d.encrypted->enc_data->algorithm);
            if (count > highest) highest = count;
            if (highest > limit) break;
            bags = PKCS12_unpack_p7encdata(safe, password, -1);
        }
        long count = copenssl_bags_max_iterations(bags, limit, 0);
        if (count > highest) highest = count;
        sk_PKCS12_SAFEBAG_pop_free(bags, PKCS12_SAFEBAG_free);
    }
    sk_PKCS7_pop_free(safes, PKCS7_free);
    ERR_clear_error();
    return highest;
}

// MARK: error reasons

/// Whether the thread's error queue holds an "unsupported algorithm" entry (what OpenSSL 3 reports when an
/// algorithm lives in a provider that is not loaded, such as RC2 in the legacy provider). Empties the queue.
int copenssl_drain_errors_has_unsupported(void) {
    unsigned long code;
    int found = 0;
    while ((code = ERR_get_error()) != 0) {
        int reason = ERR_GET_REASON(code);
        if (reason == ERR_GET_REASON(ERR_R_UNSUPPORTED) || (ERR_GET_LIB(code) == ERR_LIB_EVP && reason == EVP_R_UNSUPPORTED_ALGORITHM))
            found = 1;
    }
    return found;
}

// MARK: time

// The modulus and public exponent of an RSA key, as new BIGNUMs the caller frees. 1 on success.
int copenssl_rsa_public_numbers(const EVP_PKEY *key, BIGNUM **modulus, BIGNUM **exponent) {
    *modulus = NULL;
    *exponent = NULL;
    if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        return 1;
    }
    BN_free(*modulus);
    BN_free(*exponent);
    *modulus = NULL;
    *exponent = NULL;
    return 0;
}

long long copenssl_timegm(struct tm *value) { return (long long)timegm(value); }
