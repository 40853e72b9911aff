// TVESAML's read-only XML tree for verification: libxml2's tokenizer (its SAX2 interface, with the options of the
// tree parser) feeding nodes into one arena per document, instead of libxml2's tree of separately allocated nodes,
// and TVEKit's exclusive C14N over that tree. Names are libxml2's interned strings, kept alive with the document.
// The header holds no libxml2 declaration, so that Swift modules importing it never see libxml2's ICU-dependent
// headers. The FuzzSAMLParser and FuzzC14N fuzzers hold it to libxml2's own tree: the same documents accepted, and
// the same canonical bytes for every element.
#ifndef TVEKIT_TVEXML_H
#define TVEKIT_TVEXML_H

#include <stddef.h>

/// Node types (the values of libxml2's and the DOM's).
enum { TVE_XML_ELEMENT = 1, TVE_XML_TEXT = 3, TVE_XML_CDATA = 4, TVE_XML_PI = 7, TVE_XML_COMMENT = 8 };

/// An attribute: local name, prefix (NULL when none), namespace URI (NULL when none) and its normalized value
/// (references replaced, NUL-terminated; `value_length` bytes).
typedef struct tve_xml_attribute {
    const char *local;
    const char *prefix;
    const char *uri;
    const char *value;
    size_t value_length;
    unsigned local_length;
    unsigned prefix_length;
} tve_xml_attribute;

/// A namespace declaration on an element: prefix (NULL for the default namespace) and URI ("" undeclares the
/// default namespace).
typedef struct tve_xml_namespace {
    const char *prefix;
    const char *uri;
} tve_xml_namespace;

/// A node. Elements have `local`, `prefix` (NULL when none), `uri` (NULL when in no namespace), their attributes and
/// namespace declarations in document order, and children (name lengths in bytes beside the names). Text, CDATA sections and comments have `text`; a
/// processing instruction has its target in `local` and its data in `text`. Adjacent text is one node. `text` is
/// NUL-terminated, `text_length` bytes, never NULL for those types.
typedef struct tve_xml_node {
    int type;
    unsigned attribute_count;
    unsigned namespace_count;
    unsigned local_length;
    unsigned prefix_length;
    unsigned uri_length;
    struct tve_xml_node *parent;
    struct tve_xml_node *first;
    struct tve_xml_node *last;
    struct tve_xml_node *next;
    struct tve_xml_node *prev;
    const char *local;
    const char *prefix;
    const char *uri;
    const char *text;
    size_t text_length;
    tve_xml_attribute *attributes;
    tve_xml_namespace *namespaces;
} tve_xml_node;

/// A parsed document: its arena, its names, its root element.
typedef struct tve_xml_document tve_xml_document;

/// Results of `tve_xml_parse`.
enum {
    TVE_XML_OK = 0,
    TVE_XML_MALFORMED = 1,     ///< not well-formed XML (the message says where)
    TVE_XML_NAMESPACE = 2,     ///< well-formed, but not namespace-well-formed (an undeclared prefix, ...)
    TVE_XML_DOCTYPE = 3,       ///< a DOCTYPE or an entity declaration reached the parser
    TVE_XML_NO_ROOT = 4,       ///< no root element
    TVE_XML_NO_MEMORY = 5,     ///< an allocation failed
};

/// Parses `length` bytes of UTF-8 XML (the caller has checked the size, the UTF-8, and the absence of NUL bytes and
/// DOCTYPE) with
/// libxml2's tokenizer and the options of TVESAML's tree parser (no network, no entity but the predefined ones,
/// UTF-8 whatever the declaration says, at most 256 levels), giving the values libxml2's tree holds. On TVE_XML_OK sets `*document` (free it with
/// `tve_xml_free`); otherwise sets nothing and writes libxml2's first error message, NUL-terminated, into `error`.
int tve_xml_parse(const unsigned char *bytes, size_t length, tve_xml_document **document, char *error,
                  size_t error_capacity);

/// The root element of a parsed document.
tve_xml_node *tve_xml_root(const tve_xml_document *document);

/// Frees a document and every node, name and value in it.
void tve_xml_free(tve_xml_document *document);

/// Exclusive XML canonicalization 1.0 without comments and without an InclusiveNamespaces PrefixList, of the subtree
/// of `root` minus the subtree of `excluded` (may be NULL): exactly the bytes libxml2's `xmlC14NExecute` gives on its
/// own tree of the same input. Fails (returns -1, sets nothing) where libxml2 fails — a relative or unparsable
/// namespace URI declared anywhere in the document — and, fail-closed, beyond its limits: over 256 namespace renderings
/// along one ancestor chain, output over `limit` bytes, empty output. On success sets `*output` (free it with
/// `tve_c14n_free`) and `*length`.
int tve_xml_exc_c14n(const tve_xml_document *document, const tve_xml_node *root, const tve_xml_node *excluded,
                     size_t limit, unsigned char **output, size_t *length);

/// Every other canonicalization (Canonical XML 1.0, or exclusive with a PrefixList: `mode` and `prefixes` as in
/// `tve_c14n_subtree`): libxml2's, run on a libxml2 tree built from this one. Same contract as `tve_c14n_subtree`.
int tve_xml_c14n_libxml2(const tve_xml_document *document, const tve_xml_node *root, const tve_xml_node *excluded,
                         int mode, const char *const *prefixes, size_t limit, unsigned char **output, size_t *length);

#endif
