// C helpers for TVESAML that need real C (callbacks, thread-local state): libxml2's per-thread error handlers and
// the node-visibility callback of canonicalization. The header includes no libxml2 header (documents and nodes
// are passed as `void *`), so that Swift modules importing it never see libxml2's ICU-dependent declarations.
#ifndef TVEKIT_CTVESHIMS_H
#define TVEKIT_CTVESHIMS_H

#include <stddef.h>

/// Installs, on the calling thread, a structured error handler that records libxml2's errors (instead of printing
/// them to stderr) and a silent generic handler; clears what was recorded. Call at the start of every libxml2 use:
/// libxml2 2.9 keeps handlers per thread.
void tve_xml_errors_begin(void);

/// Restores, on the calling thread, the handlers that were installed before `tve_xml_errors_begin`.
void tve_xml_errors_end(void);

/// Copies the first recorded error message (truncated to `size - 1` bytes) into `buffer` and returns the number
/// of errors recorded since `tve_xml_errors_begin`.
int tve_xml_errors_take(char *buffer, size_t size);

/// Canonicalizes the subtree of `root` (an element of `document`), leaving out the subtree of `excluded` (may be
/// NULL): the node-set an enveloped-signature transform yields for a same-document reference.
/// - mode: 0 = Canonical XML 1.0, 1 = exclusive XML canonicalization 1.0 (both without comments).
/// - prefixes: the InclusiveNamespaces PrefixList for exclusive mode, NULL-terminated (may be NULL).
/// On success returns 0 and sets `*output` (malloc'ed; free with `tve_free`) and `*length` (> 0). On any error —
/// libxml2 failure, output over `limit` bytes, empty output — returns -1 and sets nothing: callers never see partial
/// output ("void canonicalization" fails closed).
int tve_c14n_subtree(void *document, void *root, void *excluded, int mode, const char *const *prefixes,
                     size_t limit, unsigned char **output, size_t *length);

/// TVEKit's own exclusive XML canonicalization 1.0 without comments and without an InclusiveNamespaces PrefixList,
/// of the subtree of `root` minus the subtree of `excluded` (may be NULL). It walks only that subtree, where
/// libxml2's walks the whole document, and must give exactly libxml2's output: the FuzzC14N fuzzer compares the two
/// on up to 16 elements of every input. Fails (returns -1, sets nothing) where libxml2 fails — a relative or
/// unparsable namespace URI anywhere in the document, an entity reference — and, fail-closed, beyond libxml2's own
/// limits: nesting over 256 levels, over 256 namespace renderings along one ancestor chain, output over `limit`,
/// empty output.
int tve_exc_c14n_subtree(void *document, void *root, void *excluded, size_t limit, unsigned char **output, size_t *length);

void tve_free(void *pointer);

#endif
