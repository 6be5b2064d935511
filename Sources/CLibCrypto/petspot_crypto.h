/* OpenSSL's libcrypto as Debian ships it (libssl3, updated by Debian's security team): SHA-256
 * with the CPU's SHA extensions where it has them. Only the EVP digest API is used.
 */
#ifndef PETSPOT_CRYPTO_H
#define PETSPOT_CRYPTO_H

#include <openssl/evp.h>

#endif
