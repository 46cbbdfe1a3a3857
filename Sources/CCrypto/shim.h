// OpenSSL's libcrypto (Debian libssl-dev): SHA-256 for BLECore.SHA256. The one-shot SHA256_CTX
// functions are a plain value-type state and run the same CPU-dispatched code (SHA extensions,
// AVX2) as EVP; OpenSSL 3 marks them deprecated in favour of EVP, which allocates a context.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
