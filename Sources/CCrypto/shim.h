// OpenSSL's libcrypto: only its message digests (EVP), for SHA-256 with the CPU's SHA
// instructions where it has them.
#include <openssl/evp.h>
