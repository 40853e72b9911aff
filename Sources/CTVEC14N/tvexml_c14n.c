#include "tvexml_internal.h"
#include "tvec14n.h"

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/tree.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// ---- exclusive canonicalization ----

typedef struct {
    unsigned char *data;
    size_t length;
    size_t capacity;
    size_t limit;
    int failed;
} tve_out;

static int tve_out_grow(tve_out *out, size_t count) {
    if (out->failed) return -1;
    size_t needed = out->length + count;
    if (needed < out->length || needed > out->limit) {
        out->failed = 1;
        return -1;
    }
    size_t capacity = out->capacity ? out->capacity : 4096;
    while (capacity < needed) capacity *= 2;
    unsigned char *grown = realloc(out->data, capacity);
    if (grown == NULL) {
        out->failed = 1;
        return -1;
    }
    out->data = grown;
    out->capacity = capacity;
    return 0;
}

// Canonical output is mostly short pieces (names, quotes, brackets): they are copied with fixed-size moves, which the
// compiler inlines, instead of a call to memcpy each.
static inline void tve_copy(unsigned char *destination, const unsigned char *source, size_t count) {
    if (count >= 8 && count <= 16) {
        uint64_t head, tail;
        memcpy(&head, source, 8);
        memcpy(&tail, source + count - 8, 8);
        memcpy(destination, &head, 8);
        memcpy(destination + count - 8, &tail, 8);
    } else if (count >= 4 && count < 8) {
        uint32_t head, tail;
        memcpy(&head, source, 4);
        memcpy(&tail, source + count - 4, 4);
        memcpy(destination, &head, 4);
        memcpy(destination + count - 4, &tail, 4);
    } else if (count < 4) {
        if (count > 0) destination[0] = source[0];
        if (count > 1) destination[1] = source[1];
        if (count > 2) destination[2] = source[2];
    } else {
        memcpy(destination, source, count);
    }
}

static inline int tve_put(tve_out *out, const void *bytes, size_t count) {
    if (out->capacity - out->length < count && tve_out_grow(out, count) < 0) return -1;
    tve_copy(out->data + out->length, bytes, count);
    out->length += count;
    return 0;
}

static inline int tve_put_str(tve_out *out, const char *text) { return tve_put(out, text, strlen(text)); }

// Which bytes Canonical XML escapes: bit 0 in text, bit 1 in attribute values, bit 2 in processing instructions.
static const unsigned char tve_escapes[256] = {
    ['&'] = 3, ['<'] = 3, ['>'] = 1, ['"'] = 2, ['\t'] = 2, ['\n'] = 2, ['\r'] = 7,
};

// Text (mask 1), attribute-value (mask 2) or processing-instruction (mask 4) escaping.
static int tve_put_escaped(tve_out *out, const char *text, size_t length, unsigned char mask) {
    const unsigned char *bytes = (const unsigned char *)text;
    size_t run = 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char byte = bytes[i];
        if (!(tve_escapes[byte] & mask)) continue;
        const char *replacement;
        switch (byte) {
        case '&': replacement = "&amp;"; break;
        case '<': replacement = "&lt;"; break;
        case '>': replacement = "&gt;"; break;
        case '"': replacement = "&quot;"; break;
        case '\t': replacement = "&#x9;"; break;
        case '\n': replacement = "&#xA;"; break;
        default: replacement = "&#xD;"; break;
        }
        if (tve_put(out, bytes + run, i - run) < 0 || tve_put_str(out, replacement) < 0) return -1;
        run = i + 1;
    }
    return tve_put(out, bytes + run, length - run);
}

static const char tve_xml_namespace_uri[] = "http://www.w3.org/XML/1998/namespace";

static int tve_eq(const char *a, const char *b) {
    if (a == b) return 1;
    if (a == NULL) return *b == 0;
    if (b == NULL) return *a == 0;
    return strcmp(a, b) == 0;
}

static int tve_cmp(const char *a, const char *b) { return strcmp(a != NULL ? a : "", b != NULL ? b : ""); }

static int tve_is_xml(const char *prefix, const char *uri) {
    return prefix != NULL && prefix[0] == 'x' && prefix[1] == 'm' && prefix[2] == 'l' && prefix[3] == 0 && uri != NULL
        && strcmp(uri, tve_xml_namespace_uri) == 0;
}

typedef struct {
    const char *prefix;  // NULL or "" for the default namespace
    const char *uri;
} tve_rendered_ns;

#define TVE_MAX_RENDERED 256

typedef struct {
    tve_out *out;
    const tve_xml_node *excluded;
    tve_rendered_ns rendered[TVE_MAX_RENDERED];  // rendered by output ancestors, innermost last
    size_t count;
} tve_exc_state;

// Whether (prefix, uri) is what the nearest output ancestor rendered for that prefix, among the first `count`; an
// empty default namespace counts as rendered when no ancestor rendered a default.
static int tve_rendered(const tve_exc_state *state, size_t count, const char *prefix, const char *uri) {
    for (size_t i = count; i > 0; i--) {
        if (tve_eq(state->rendered[i - 1].prefix, prefix)) return tve_eq(state->rendered[i - 1].uri, uri);
    }
    return tve_eq(prefix, NULL) && tve_eq(uri, NULL);
}

static int tve_attribute_cmp(const tve_xml_attribute *a, const tve_xml_attribute *b) {
    if (a->uri == NULL || b->uri == NULL) {
        if (a->uri != b->uri) return a->uri == NULL ? -1 : 1;
        return strcmp(a->local, b->local);
    }
    int order = strcmp(a->uri, b->uri);
    return order != 0 ? order : strcmp(a->local, b->local);
}

static int tve_put_name(tve_out *out, const char *prefix, unsigned prefixLength, const char *local, unsigned localLength) {
    if (prefixLength > 0 && (tve_put(out, prefix, prefixLength) < 0 || tve_put(out, ":", 1) < 0)) return -1;
    return tve_put(out, local, localLength);
}

// The start tag of `element`: its visibly used namespaces not yet rendered, then its attributes, sorted. Pushes what
// it renders onto the state (the caller pops at the end tag).
static int tve_exc_start_tag(tve_exc_state *state, const tve_xml_node *element) {
    tve_out *out = state->out;
    size_t mark = state->count;
    // The element's namespace; an element in no namespace uses the default namespace "" (rendered as xmlns="" only
    // when an output ancestor rendered a non-empty default).
    if (!tve_is_xml(element->prefix, element->uri) && !tve_rendered(state, mark, element->prefix, element->uri)) {
        if (state->count >= TVE_MAX_RENDERED) return -1;
        state->rendered[state->count++] = (tve_rendered_ns){element->prefix, element->uri != NULL ? element->uri : ""};
    }
    for (unsigned i = 0; i < element->attribute_count; i++) {
        const tve_xml_attribute *attribute = element->attributes + i;
        if (attribute->uri == NULL || tve_is_xml(attribute->prefix, attribute->uri)) continue;
        if (tve_rendered(state, mark, attribute->prefix, attribute->uri)) continue;
        int duplicate = 0;
        for (size_t j = mark; j < state->count; j++) duplicate |= tve_eq(state->rendered[j].prefix, attribute->prefix);
        if (duplicate) continue;
        if (state->count >= TVE_MAX_RENDERED) return -1;
        state->rendered[state->count++] = (tve_rendered_ns){attribute->prefix, attribute->uri};
    }
    tve_rendered_ns *pending = state->rendered + mark;
    size_t pendingCount = state->count - mark;
    for (size_t i = 1; i < pendingCount; i++) {
        for (size_t j = i; j > 0 && tve_cmp(pending[j - 1].prefix, pending[j].prefix) > 0; j--) {
            tve_rendered_ns swap = pending[j];
            pending[j] = pending[j - 1];
            pending[j - 1] = swap;
        }
    }
    if (tve_put(out, "<", 1) < 0 || tve_put_name(out, element->prefix, element->prefix_length, element->local, element->local_length) < 0) return -1;
    for (size_t i = 0; i < pendingCount; i++) {
        int isDefault = pending[i].prefix == NULL || *pending[i].prefix == 0;
        if (isDefault ? tve_put(out, " xmlns=\"", 8) < 0
                      : (tve_put(out, " xmlns:", 7) < 0 || tve_put_str(out, pending[i].prefix) < 0 || tve_put(out, "=\"", 2) < 0))
            return -1;
        if (tve_put_str(out, pending[i].uri) < 0 || tve_put(out, "\"", 1) < 0) return -1;
    }
    if (element->attribute_count > 0) {
        const tve_xml_attribute *small[32];
        const tve_xml_attribute **sorted = element->attribute_count <= 32 ? small : malloc(element->attribute_count * sizeof(void *));
        if (sorted == NULL) return -1;
        size_t n = element->attribute_count;
        for (size_t i = 0; i < n; i++) {
            const tve_xml_attribute *attribute = element->attributes + i;
            size_t j = i;
            for (; j > 0 && tve_attribute_cmp(sorted[j - 1], attribute) > 0; j--) sorted[j] = sorted[j - 1];
            sorted[j] = attribute;
        }
        int failed = 0;
        for (size_t i = 0; i < n && !failed; i++) {
            const tve_xml_attribute *attribute = sorted[i];
            failed = tve_put(out, " ", 1) < 0 || tve_put_name(out, attribute->prefix, attribute->prefix_length, attribute->local, attribute->local_length) < 0
                || tve_put(out, "=\"", 2) < 0 || tve_put_escaped(out, attribute->value, attribute->value_length, 2) < 0
                || tve_put(out, "\"", 1) < 0;
        }
        if (sorted != small) free((void *)sorted);
        if (failed) return -1;
    }
    return tve_put(out, ">", 1);
}

static int tve_end_tag(tve_out *out, const tve_xml_node *element) {
    return tve_put(out, "</", 2) < 0 || tve_put_name(out, element->prefix, element->prefix_length, element->local, element->local_length) < 0 || tve_put(out, ">", 1) < 0
        ? -1 : 0;
}

// Iterative: the arena's links give the walk, and the rendered stack's marks are kept per open element.
static int tve_exc_walk(tve_exc_state *state, const tve_xml_node *apex) {
    size_t marks[260];
    size_t depth = 0;
    const tve_xml_node *node = apex;
    for (;;) {
        int descend = 0;
        switch (node->type) {
        case TVE_XML_ELEMENT:
            if (node == state->excluded) break;
            if (depth >= 258) return -1;  // libxml2 parses at most 256 levels
            marks[depth] = state->count;
            if (tve_exc_start_tag(state, node) < 0) return -1;
            if (node->first != NULL) {
                depth++;
                node = node->first;
                descend = 1;
            } else {
                if (tve_end_tag(state->out, node) < 0) return -1;
                state->count = marks[depth];
            }
            break;
        case TVE_XML_TEXT:
        case TVE_XML_CDATA:
            if (tve_put_escaped(state->out, node->text, node->text_length, 1) < 0) return -1;
            break;
        case TVE_XML_PI:
            if (tve_put(state->out, "<?", 2) < 0 || tve_put_str(state->out, node->local) < 0) return -1;
            if (node->text_length > 0
                && (tve_put(state->out, " ", 1) < 0 || tve_put_escaped(state->out, node->text, node->text_length, 4) < 0))
                return -1;
            if (tve_put(state->out, "?>", 2) < 0) return -1;
            break;
        default:
            break;  // comments
        }
        if (descend) continue;
        // Next: the sibling, or close the parents that have none left.
        while (node != apex && node->next == NULL) {
            node = node->parent;
            depth--;
            if (tve_end_tag(state->out, node) < 0) return -1;
            state->count = marks[depth];
        }
        if (node == apex) return 0;
        node = node->next;
    }
}

int tve_xml_exc_c14n(const tve_xml_document *document, const tve_xml_node *root, const tve_xml_node *excluded,
                     size_t limit, unsigned char **output, size_t *length) {
    if (document == NULL || root == NULL || root->type != TVE_XML_ELEMENT || root == excluded || output == NULL
        || length == NULL || document->bad_namespace)
        return -1;
    tve_out out = {NULL, 0, 0, limit, 0};
    size_t hint = document->input_length + 1024 < limit ? document->input_length + 1024 : limit;
    if (hint > 0 && tve_out_grow(&out, hint) < 0) return -1;
    tve_exc_state *state = malloc(sizeof(tve_exc_state));
    if (state == NULL) return -1;
    state->out = &out;
    state->excluded = excluded;
    state->count = 0;
    int result = tve_exc_walk(state, root);
    free(state);
    if (result < 0 || out.failed || out.length == 0) {
        free(out.data);
        return -1;
    }
    *output = out.data;
    *length = out.length;
    return 0;
}

// ---- every other canonicalization: libxml2's, on a libxml2 tree built from this one ----

typedef struct {
    const tve_xml_node *root;
    const tve_xml_node *excluded;
    xmlNodePtr builtRoot;
    xmlNodePtr builtExcluded;
} tve_mapping;

static xmlNodePtr tve_build(xmlDocPtr doc, xmlNodePtr parent, const tve_xml_node *node, tve_mapping *mapping) {
    xmlNodePtr built = NULL;
    switch (node->type) {
    case TVE_XML_ELEMENT: {
        built = xmlNewDocNode(doc, NULL, (const xmlChar *)node->local, NULL);
        if (built == NULL) return NULL;
        xmlNsPtr last = NULL;
        for (unsigned i = 0; i < node->namespace_count; i++) {
            xmlNsPtr ns = xmlNewNs(NULL, (const xmlChar *)node->namespaces[i].uri, (const xmlChar *)node->namespaces[i].prefix);
            if (ns == NULL) continue;  // as libxml2's tree builder: xmlns:xml is not kept
            if (last == NULL) built->nsDef = ns; else last->next = ns;
            last = ns;
        }
        if (parent != NULL) xmlAddChild(parent, built); else xmlDocSetRootElement(doc, built);
        if (node->uri != NULL) built->ns = xmlSearchNs(doc, built, (const xmlChar *)node->prefix);
        for (unsigned i = 0; i < node->attribute_count; i++) {
            const tve_xml_attribute *attribute = node->attributes + i;
            xmlNsPtr ns = attribute->uri != NULL ? xmlSearchNs(doc, built, (const xmlChar *)attribute->prefix) : NULL;
            if (xmlNewNsProp(built, ns, (const xmlChar *)attribute->local, (const xmlChar *)attribute->value) == NULL) return NULL;
        }
        for (const tve_xml_node *child = node->first; child != NULL; child = child->next) {
            if (tve_build(doc, built, child, mapping) == NULL) return NULL;
        }
        if (node == mapping->root) mapping->builtRoot = built;
        if (node == mapping->excluded) mapping->builtExcluded = built;
        return built;
    }
    case TVE_XML_TEXT: built = xmlNewDocTextLen(doc, (const xmlChar *)node->text, (int)node->text_length); break;
    case TVE_XML_CDATA: built = xmlNewCDataBlock(doc, (const xmlChar *)node->text, (int)node->text_length); break;
    case TVE_XML_COMMENT: built = xmlNewDocComment(doc, (const xmlChar *)node->text); break;
    case TVE_XML_PI: built = xmlNewDocPI(doc, (const xmlChar *)node->local, (const xmlChar *)node->text); break;
    default: return NULL;
    }
    if (built == NULL) return NULL;
    xmlNodePtr added = xmlAddChild(parent, built);  // merges adjacent text, as libxml2's parser does
    if (added == NULL) xmlFreeNode(built);
    return added;
}

int tve_xml_c14n_libxml2(const tve_xml_document *document, const tve_xml_node *root, const tve_xml_node *excluded,
                         int mode, const char *const *prefixes, size_t limit, unsigned char **output, size_t *length) {
    if (document == NULL || document->root == NULL || root == NULL || output == NULL || length == NULL) return -1;
    xmlDocPtr doc = xmlNewDoc((const xmlChar *)"1.0");
    if (doc == NULL) return -1;
    doc->charset = XML_CHAR_ENCODING_UTF8;
    tve_mapping mapping = {root, excluded, NULL, NULL};
    int result = -1;
    if (tve_build(doc, NULL, document->root, &mapping) != NULL && mapping.builtRoot != NULL
        && (excluded == NULL || mapping.builtExcluded != NULL)) {
        result = tve_c14n_subtree(doc, mapping.builtRoot, mapping.builtExcluded, mode, prefixes, limit, output, length);
    }
    xmlFreeDoc(doc);
    return result;
}
