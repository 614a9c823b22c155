// OpenSSL for Faultline. A system-library target compiles no C, so the macros that
// Swift cannot import get `static inline` wrappers here, prefixed `faultline_`.
#ifndef FAULTLINE_COPENSSL_SHIM_H
#define FAULTLINE_COPENSSL_SHIM_H
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static inline void faultline_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
#endif
