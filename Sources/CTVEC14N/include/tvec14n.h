// XML canonicalization for TVESAML's signature checks: libxml2's (Canonical XML 1.0 and exclusive 1.0 of a subtree,
// with the enveloped signature left out) and TVEKit's own exclusive C14N, which walks only the subtree. Documents
// and nodes are passed as `void *`, so that Swift modules importing this header never see libxml2's ICU-dependent
// declarations. Vector tests: TestVectors/c14n (TVESAMLTests' C14NVectorTests).
#ifndef TVEKIT_CTVEC14N_H
#define TVEKIT_CTVEC14N_H

#include <stddef.h>

// The verifier's tree and its canonicalizer (included here too, so that a module built before that header existed is
// rebuilt with it).
#include "tvexml.h"

/// Canonicalizes the subtree of `root` (an element of `document`), leaving out the subtree of `excluded` (may be
/// NULL): the node-set an enveloped-signature transform yields for a same-document reference.
/// - mode: 0 = Canonical XML 1.0, 1 = exclusive XML canonicalization 1.0 (both without comments).
/// - prefixes: the InclusiveNamespaces PrefixList for exclusive mode, NULL-terminated (may be NULL).
/// On success returns 0 and sets `*output` (malloc'ed; free with `tve_c14n_free`) and `*length` (> 0). On any error —
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

/// Frees an output of `tve_c14n_subtree` or `tve_exc_c14n_subtree`.
void tve_c14n_free(void *pointer);

#endif
