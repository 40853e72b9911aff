// The one shim header of the libxml2 system-library target.
//
// 1. Debian builds libxml2 with LIBXML_ICU_ENABLED, which makes <libxml/encoding.h> include the system ICU
//    headers. Foundation on Linux ships its own ICU module, and the two definitions of `UErrorCode` clash in
//    any file that sees both (for example a test with `@testable import` of a module that uses libxml2).
//    Undefining the flag only removes the ICU members of `struct _xmlCharEncodingHandler`, which every other
//    libxml2 structure reaches through a pointer and which TVEKit never touches.
// 2. `xmlFree` is a mutable global function pointer; Swift 6 rejects reading it (shared mutable state), so it
//    is wrapped as `clibxml2_xmlFree`.
#ifndef TVEKIT_CLIBXML2_SHIM_H
#define TVEKIT_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/c14n.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>
#include <libxml/xmlsave.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

static inline void clibxml2_xmlFree(void *pointer) { xmlFree(pointer); }

static const int clibxml2_LIBXML_VERSION = LIBXML_VERSION;

#endif
