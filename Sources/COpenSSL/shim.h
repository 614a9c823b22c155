// OpenSSL for Faultline. A system-library target compiles no C, so the macros that
// Swift cannot import get `static inline` wrappers here, prefixed `faultline_`.
#ifndef FAULTLINE_COPENSSL_SHIM_H
#define FAULTLINE_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/tls1.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static inline void faultline_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

// MARK: Keys and certificates (FaultlineTLS)

/// A fresh EC key on NIST P-256 (`EVP_EC_gen` is a macro over the variadic `EVP_PKEY_Q_keygen`).
static inline EVP_PKEY *faultline_EVP_EC_gen_P256(void) { return EVP_EC_gen("P-256"); }

static inline GENERAL_NAMES *faultline_sk_GENERAL_NAME_new_null(void) { return sk_GENERAL_NAME_new_null(); }
static inline int faultline_sk_GENERAL_NAME_push(GENERAL_NAMES *names, GENERAL_NAME *name) {
    return sk_GENERAL_NAME_push(names, name);
}
/// `XN_FLAG_RFC2253` is a chain of casts Swift does not import.
static inline unsigned long faultline_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }
static inline int faultline_sk_GENERAL_NAME_num(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }
static inline GENERAL_NAME *faultline_sk_GENERAL_NAME_value(const GENERAL_NAMES *names, int index) {
    return sk_GENERAL_NAME_value(names, index);
}

// MARK: Memory BIOs and SSL objects (FaultlineTLS)

/// What a read from an empty memory BIO returns: -1 means "retry later", 0 means end of file.
static inline long faultline_BIO_set_mem_eof_return(BIO *bio, long value) {
    return BIO_set_mem_eof_return(bio, value);
}
static inline int faultline_SSL_get_ex_new_index(void) { return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL); }
static inline long faultline_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline long faultline_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) {
    return SSL_CTX_set_min_proto_version(context, version);
}
static inline long faultline_SSL_CTX_set_tlsext_servername_callback(
    SSL_CTX *context, int (*callback)(SSL *, int *, void *)) {
    return SSL_CTX_set_tlsext_servername_callback(context, callback);
}
/// `SSL_OP_*` are `(uint64_t)1 << n` casts, which Swift does not import.
static inline uint64_t faultline_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t faultline_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
#endif
