#include "tvec14n.h"

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/c14n.h>
#include <libxml/tree.h>
#include <libxml/xmlIO.h>

#include <stdlib.h>
#include <string.h>

// ---- canonicalization ----

typedef struct {
    xmlNodePtr root;
    xmlNodePtr excluded;
} tve_scope;

// Visible when inside `root` and outside `excluded`. Namespace nodes (xmlNs, whose `type` field sits where
// xmlNode's does) belong to their parent element; attributes reach their element through `parent`.
static int tve_visible(void *user_data, xmlNodePtr node, xmlNodePtr parent) {
    const tve_scope *scope = user_data;
    xmlNodePtr current = (node != NULL && node->type == XML_NAMESPACE_DECL) ? parent : node;
    for (; current != NULL; current = current->parent) {
        if (current == scope->excluded) return 0;
        if (current == scope->root) return 1;
        if (current->type == XML_DOCUMENT_NODE) return 0;
    }
    return 0;
}

typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
    size_t limit;
    int failed;
} tve_sink;

static int tve_sink_write(void *context, const char *bytes, int count) {
    tve_sink *sink = context;
    if (count < 0 || sink->failed) return -1;
    if (count == 0) return 0;
    size_t needed = sink->length + (size_t)count;
    if (needed > sink->limit) {
        sink->failed = 1;
        return -1;
    }
    if (needed > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity : 4096;
        while (capacity < needed) capacity *= 2;
        unsigned char *grown = realloc(sink->data, capacity);
        if (grown == NULL) {
            sink->failed = 1;
            return -1;
        }
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->length, bytes, (size_t)count);
    sink->length = needed;
    return count;
}

static int tve_sink_close(void *context) {
    (void)context;
    return 0;
}

int tve_c14n_subtree(void *document, void *root, void *excluded, int mode, const char *const *prefixes,
                     size_t limit, unsigned char **output, size_t *length) {
    if (document == NULL || root == NULL || output == NULL || length == NULL) return -1;
    tve_scope scope = {(xmlNodePtr)root, (xmlNodePtr)excluded};
    tve_sink sink = {NULL, 0, 0, limit, 0};
    xmlOutputBufferPtr buffer = xmlOutputBufferCreateIO(tve_sink_write, tve_sink_close, &sink, NULL);
    if (buffer == NULL) return -1;
    int c14nMode = mode == 1 ? XML_C14N_EXCLUSIVE_1_0 : XML_C14N_1_0;
    int result = xmlC14NExecute((xmlDocPtr)document, tve_visible, &scope, c14nMode,
                                mode == 1 ? (xmlChar **)prefixes : NULL, 0, buffer);
    int closed = xmlOutputBufferClose(buffer);
    if (result < 0 || closed < 0 || sink.failed || sink.length == 0) {
        free(sink.data);
        return -1;
    }
    *output = sink.data;
    *length = sink.length;
    return 0;
}

void tve_c14n_free(void *pointer) { free(pointer); }

// ---- TVEKit's exclusive canonicalization ----

#include <libxml/uri.h>

typedef struct {
    const xmlChar *prefix;  // NULL or "" for the default namespace
    const xmlChar *href;
} tve_ns;

typedef struct {
    tve_sink *sink;
    xmlNodePtr excluded;
    tve_ns *rendered;  // the namespaces rendered by output ancestors, innermost last
    size_t count;
    size_t capacity;
} tve_exc;

static int tve_str_eq(const xmlChar *a, const xmlChar *b) {
    if (a == b) return 1;
    if (a == NULL) return *b == 0;
    if (b == NULL) return *a == 0;
    return xmlStrEqual(a, b);
}

static int tve_str_cmp(const xmlChar *a, const xmlChar *b) {
    if (a == NULL) a = (const xmlChar *)"";
    if (b == NULL) b = (const xmlChar *)"";
    return strcmp((const char *)a, (const char *)b);
}

static int tve_write(tve_sink *sink, const char *bytes, size_t count) {
    if (count > 0x7fffffff) { sink->failed = 1; return -1; }
    return tve_sink_write(sink, bytes, (int)count) < 0 ? -1 : 0;
}

static int tve_write_str(tve_sink *sink, const xmlChar *text) {
    return text == NULL ? 0 : tve_write(sink, (const char *)text, strlen((const char *)text));
}

// Text (mode 0), attribute (mode 1) or processing-instruction (mode 2) escaping of Canonical XML.
static int tve_write_escaped(tve_sink *sink, const xmlChar *text, int mode) {
    if (text == NULL) return 0;
    const xmlChar *run = text;
    for (const xmlChar *cur = text;; cur++) {
        const char *replacement = NULL;
        switch (*cur) {
        case 0: return tve_write(sink, (const char *)run, (size_t)(cur - run));
        case '&': if (mode != 2) replacement = "&amp;"; break;
        case '<': if (mode != 2) replacement = "&lt;"; break;
        case '>': if (mode == 0) replacement = "&gt;"; break;
        case '"': if (mode == 1) replacement = "&quot;"; break;
        case '\t': if (mode == 1) replacement = "&#x9;"; break;
        case '\n': if (mode == 1) replacement = "&#xA;"; break;
        case '\r': replacement = "&#xD;"; break;
        default: break;
        }
        if (replacement != NULL) {
            if (tve_write(sink, (const char *)run, (size_t)(cur - run)) < 0 || tve_write_str(sink, (const xmlChar *)replacement) < 0) return -1;
            run = cur + 1;
        }
    }
}

static int tve_is_xml_ns(const xmlNs *ns) {
    return ns != NULL && ns->prefix != NULL && xmlStrEqual(ns->prefix, (const xmlChar *)"xml")
        && xmlStrEqual(ns->href, XML_XML_NAMESPACE);
}

// Whether (prefix, href) is what the nearest output ancestor rendered for that prefix; an empty default
// namespace counts as rendered when no ancestor rendered a default.
static int tve_is_rendered(const tve_exc *state, const xmlChar *prefix, const xmlChar *href) {
    for (size_t i = state->count; i > 0; i--) {
        if (tve_str_eq(state->rendered[i - 1].prefix, prefix)) return tve_str_eq(state->rendered[i - 1].href, href);
    }
    return tve_str_eq(prefix, NULL) && tve_str_eq(href, NULL);
}

// At most this many namespace renderings along one ancestor chain: real documents use a handful, and the bound
// keeps the linear lookups from turning a 1 MiB input into seconds of work (a documented difference from libxml2,
// which has no bound; it fails closed).
#define TVE_MAX_RENDERED 256

static int tve_push(tve_exc *state, const xmlChar *prefix, const xmlChar *href) {
    if (state->count >= TVE_MAX_RENDERED) return -1;
    if (state->count == state->capacity) {
        size_t capacity = state->capacity ? state->capacity * 2 : 32;
        tve_ns *grown = realloc(state->rendered, capacity * sizeof(tve_ns));
        if (grown == NULL) return -1;
        state->rendered = grown;
        state->capacity = capacity;
    }
    state->rendered[state->count].prefix = prefix;
    state->rendered[state->count].href = href;
    state->count++;
    return 0;
}

// The in-scope default namespace declaration of `node` (possibly xmlns=""), or NULL.
static xmlNsPtr tve_default_ns(xmlNodePtr node) {
    for (xmlNodePtr cur = node; cur != NULL && cur->type == XML_ELEMENT_NODE; cur = cur->parent) {
        for (xmlNsPtr ns = cur->nsDef; ns != NULL; ns = ns->next) {
            if (ns->prefix == NULL && ns->href != NULL) return ns;
        }
    }
    return NULL;
}

static int tve_attr_cmp(const xmlAttr *a, const xmlAttr *b) {
    if (a->ns == b->ns) return tve_str_cmp(a->name, b->name);
    if (a->ns == NULL) return -1;
    if (b->ns == NULL) return 1;
    int order = tve_str_cmp(a->ns->href, b->ns->href);
    return order != 0 ? order : tve_str_cmp(a->name, b->name);
}

static int tve_exc_element(tve_exc *state, xmlNodePtr element, int depth);

static int tve_exc_children(tve_exc *state, xmlNodePtr first, int depth) {
    for (xmlNodePtr child = first; child != NULL; child = child->next) {
        switch (child->type) {
        case XML_ELEMENT_NODE:
            if (child != state->excluded && tve_exc_element(state, child, depth + 1) < 0) return -1;
            break;
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE:
            if (tve_write_escaped(state->sink, child->content, 0) < 0) return -1;
            break;
        case XML_COMMENT_NODE:
            break;
        case XML_PI_NODE:
            if (tve_write_str(state->sink, (const xmlChar *)"<?") < 0 || tve_write_str(state->sink, child->name) < 0) return -1;
            if (child->content != NULL && *child->content != 0) {
                if (tve_write_str(state->sink, (const xmlChar *)" ") < 0 || tve_write_escaped(state->sink, child->content, 2) < 0) return -1;
            }
            if (tve_write_str(state->sink, (const xmlChar *)"?>") < 0) return -1;
            break;
        case XML_XINCLUDE_START:
        case XML_XINCLUDE_END:
            break;
        default:
            return -1;  // entity references and anything else libxml2's C14N refuses
        }
    }
    return 0;
}

static int tve_exc_element(tve_exc *state, xmlNodePtr element, int depth) {
    // libxml2 parses at most 256 levels without XML_PARSE_HUGE; the same bound keeps this recursion's stack small.
    if (depth > 256) return -1;
    tve_sink *sink = state->sink;
    size_t mark = state->count;
    // Namespaces to render: the element's own (or the in-scope default) and its attributes', when not rendered yet by
    // an output ancestor. They are pushed straight onto the rendered stack (the slice from `mark`), which scopes them
    // to this element; the lookups below see only the ancestors' part (`mark`), as libxml2's do.
    size_t visible = mark;
    xmlNsPtr own = element->ns != NULL ? element->ns : tve_default_ns(element);
    state->count = visible;
    if (own != NULL && !tve_is_xml_ns(own) && !tve_is_rendered(state, own->prefix, own->href)) {
        if (tve_push(state, own->prefix, own->href) < 0) return -1;
    }
    size_t attributeCount = 0;
    for (xmlAttrPtr attribute = element->properties; attribute != NULL; attribute = attribute->next) {
        attributeCount++;
        xmlNsPtr ns = attribute->ns;
        if (ns == NULL || tve_is_xml_ns(ns)) continue;
        size_t pushed = state->count;
        state->count = visible;  // look up among the ancestors' renderings only
        int rendered = tve_is_rendered(state, ns->prefix, ns->href);
        state->count = pushed;
        if (rendered) continue;
        int duplicate = 0;
        for (size_t i = mark; i < state->count; i++) duplicate |= tve_str_eq(state->rendered[i].prefix, ns->prefix);
        if (!duplicate && tve_push(state, ns->prefix, ns->href) < 0) return -1;
    }
    // Sort this element's slice by prefix (the default namespace first): insertion sort, the slices are tiny.
    tve_ns *pending = state->rendered + mark;
    size_t pendingCount = state->count - mark;
    for (size_t i = 1; i < pendingCount; i++) {
        for (size_t j = i; j > 0 && tve_str_cmp(pending[j - 1].prefix, pending[j].prefix) > 0; j--) {
            tve_ns swap = pending[j];
            pending[j] = pending[j - 1];
            pending[j - 1] = swap;
        }
    }
    if (tve_write_str(sink, (const xmlChar *)"<") < 0) return -1;
    if (element->ns != NULL && element->ns->prefix != NULL && *element->ns->prefix != 0) {
        if (tve_write_str(sink, element->ns->prefix) < 0 || tve_write_str(sink, (const xmlChar *)":") < 0) return -1;
    }
    if (tve_write_str(sink, element->name) < 0) return -1;
    for (size_t i = 0; i < pendingCount; i++) {
        int isDefault = pending[i].prefix == NULL || *pending[i].prefix == 0;
        if (tve_write_str(sink, (const xmlChar *)(isDefault ? " xmlns=\"" : " xmlns:")) < 0) return -1;
        if (!isDefault && (tve_write_str(sink, pending[i].prefix) < 0 || tve_write_str(sink, (const xmlChar *)"=\"") < 0)) return -1;
        if (tve_write_str(sink, pending[i].href) < 0 || tve_write_str(sink, (const xmlChar *)"\"") < 0) return -1;
    }
    // Attributes sorted by namespace URI (none first), then local name.
    if (attributeCount > 0) {
        xmlAttrPtr small[32];
        xmlAttrPtr *sorted = attributeCount <= 32 ? small : malloc(attributeCount * sizeof(xmlAttrPtr));
        if (sorted == NULL) return -1;
        size_t n = 0;
        for (xmlAttrPtr attribute = element->properties; attribute != NULL; attribute = attribute->next) sorted[n++] = attribute;
        for (size_t i = 1; i < n; i++) {
            for (size_t j = i; j > 0 && tve_attr_cmp(sorted[j - 1], sorted[j]) > 0; j--) {
                xmlAttrPtr swap = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = swap;
            }
        }
        int failed = 0;
        for (size_t i = 0; i < n && !failed; i++) {
            xmlAttrPtr attribute = sorted[i];
            failed |= tve_write_str(sink, (const xmlChar *)" ") < 0;
            if (attribute->ns != NULL && attribute->ns->prefix != NULL && *attribute->ns->prefix != 0) {
                failed |= tve_write_str(sink, attribute->ns->prefix) < 0 || tve_write_str(sink, (const xmlChar *)":") < 0;
            }
            failed |= tve_write_str(sink, attribute->name) < 0 || tve_write_str(sink, (const xmlChar *)"=\"") < 0;
            xmlNodePtr value = attribute->children;
            if (value != NULL && value->next == NULL && value->type == XML_TEXT_NODE) {
                failed |= tve_write_escaped(sink, value->content, 1) < 0;
            } else if (value != NULL) {
                xmlChar *joined = xmlNodeListGetString(element->doc, value, 1);
                if (joined == NULL) {
                    failed = 1;
                } else {
                    failed |= tve_write_escaped(sink, joined, 1) < 0;
                    xmlFree(joined);
                }
            }
            failed |= tve_write_str(sink, (const xmlChar *)"\"") < 0;
        }
        if (sorted != small) free(sorted);
        if (failed) return -1;
    }
    if (tve_write_str(sink, (const xmlChar *)">") < 0) return -1;
    if (tve_exc_children(state, element->children, depth) < 0) return -1;
    if (tve_write_str(sink, (const xmlChar *)"</") < 0) return -1;
    if (element->ns != NULL && element->ns->prefix != NULL && *element->ns->prefix != 0) {
        if (tve_write_str(sink, element->ns->prefix) < 0 || tve_write_str(sink, (const xmlChar *)":") < 0) return -1;
    }
    if (tve_write_str(sink, element->name) < 0 || tve_write_str(sink, (const xmlChar *)">") < 0) return -1;
    state->count = mark;
    return 0;
}

// libxml2's C14N fails on a relative or unparsable namespace URI declared anywhere in the document it walks.
static int tve_has_bad_namespace(xmlNodePtr node) {
    for (xmlNodePtr cur = node; cur != NULL; cur = cur->next) {
        if (cur->type != XML_ELEMENT_NODE) continue;
        for (xmlNsPtr ns = cur->nsDef; ns != NULL; ns = ns->next) {
            if (ns->href == NULL || *ns->href == 0) continue;
            xmlURIPtr uri = xmlParseURI((const char *)ns->href);
            if (uri == NULL) return 1;
            int relative = uri->scheme == NULL;
            xmlFreeURI(uri);
            if (relative) return 1;
        }
        if (cur->children != NULL && tve_has_bad_namespace(cur->children)) return 1;
    }
    return 0;
}

int tve_exc_c14n_subtree(void *document, void *root, void *excluded, size_t limit, unsigned char **output, size_t *length) {
    xmlDocPtr doc = document;
    xmlNodePtr apex = root;
    if (doc == NULL || apex == NULL || apex->type != XML_ELEMENT_NODE || output == NULL || length == NULL) return -1;
    if (doc->charset != XML_CHAR_ENCODING_UTF8) return -1;
    if (tve_has_bad_namespace(xmlDocGetRootElement(doc))) return -1;
    tve_sink sink = {NULL, 0, 0, limit, 0};
    tve_exc state = {&sink, (xmlNodePtr)excluded, NULL, 0, 0};
    int result = apex == excluded ? -1 : tve_exc_element(&state, apex, 0);
    free(state.rendered);
    if (result < 0 || sink.failed || sink.length == 0) {
        free(sink.data);
        return -1;
    }
    *output = sink.data;
    *length = sink.length;
    return 0;
}
