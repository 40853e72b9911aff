#include "tvexml_internal.h"

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/uri.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- the arena ----

// Each thread keeps the first chunk of the last document it freed, so that the next parse neither allocates nor
// touches fresh pages: at 50 KB, mapping and faulting a new arena in cost a tenth of a verification. Chunks over 1 MiB
// (inputs over about 200 KB) are not kept, so a thread holds at most 1 MiB.
#define TVE_CACHED_CHUNK_LIMIT ((size_t)1 << 20)
static pthread_key_t tve_cache_key;
static pthread_once_t tve_cache_once = PTHREAD_ONCE_INIT;
static int tve_cache_ready;

static void tve_cache_destroy(void *chunk) { free(chunk); }
static void tve_cache_init(void) { tve_cache_ready = pthread_key_create(&tve_cache_key, tve_cache_destroy) == 0; }

static tve_chunk *tve_cache_take(size_t capacity) {
    pthread_once(&tve_cache_once, tve_cache_init);
    if (!tve_cache_ready) return NULL;
    tve_chunk *chunk = pthread_getspecific(tve_cache_key);
    if (chunk == NULL || chunk->size < capacity) return NULL;
    pthread_setspecific(tve_cache_key, NULL);
    chunk->next = NULL;
    chunk->used = 0;
    return chunk;
}

static void tve_cache_put(tve_chunk *chunk) {
    if (!tve_cache_ready || chunk->size > TVE_CACHED_CHUNK_LIMIT) {
        free(chunk);
        return;
    }
    tve_chunk *cached = pthread_getspecific(tve_cache_key);
    if (cached != NULL && cached->size >= chunk->size) {
        free(chunk);
        return;
    }
    if (pthread_setspecific(tve_cache_key, chunk) != 0) {
        free(chunk);
        return;
    }
    free(cached);
}

static tve_chunk *tve_new_chunk(size_t capacity) {
    tve_chunk *chunk = malloc(sizeof(tve_chunk) + capacity);
    if (chunk == NULL) return NULL;
    chunk->next = NULL;
    chunk->size = capacity;
    chunk->used = 0;
    return chunk;
}

static void *tve_arena_alloc(tve_xml_document *document, size_t size) {
    size = (size + 7) & ~(size_t)7;
    tve_chunk *chunk = document->chunks;
    if (chunk == NULL || chunk->size - chunk->used < size) {
        size_t capacity = chunk == NULL ? 16384 : chunk->size * 2;
        if (capacity > (1u << 20)) capacity = 1u << 20;
        if (capacity < size) capacity = size;
        tve_chunk *grown = tve_new_chunk(capacity);
        if (grown == NULL) return NULL;
        grown->next = chunk;
        document->chunks = grown;
        chunk = grown;
    }
    void *result = chunk->data + chunk->used;
    chunk->used += size;
    return result;
}

static char *tve_arena_copy(tve_xml_document *document, const xmlChar *bytes, size_t length) {
    char *copy = tve_arena_alloc(document, length + 1);
    if (copy == NULL) return NULL;
    if (length > 0) memcpy(copy, bytes, length);
    copy[length] = 0;
    return copy;
}

void tve_xml_free(tve_xml_document *document) {
    if (document == NULL) return;
    for (tve_chunk *chunk = document->chunks; chunk != NULL;) {
        tve_chunk *next = chunk->next;
        if (next == NULL) tve_cache_put(chunk); else free(chunk);  // the first chunk is kept for the next parse
        chunk = next;
    }
    if (document->dict != NULL) xmlDictFree((xmlDictPtr)document->dict);
    free(document);
}

tve_xml_node *tve_xml_root(const tve_xml_document *document) { return document == NULL ? NULL : document->root; }

// ---- the SAX2 builder ----

typedef struct {
    tve_xml_document *document;
    tve_xml_node *current;  // the open element, NULL outside the root
    int failed;             // an allocation failed
    int declaration;        // a DOCTYPE or entity declaration was reported
    char *error;
    size_t error_capacity;
    int has_error;
    const xmlChar *checked[8];  // namespace URIs already checked (interned, compared by address)
    unsigned checked_count;
    const xmlChar *last_uri;  // the last element's namespace URI and its length: elements mostly share one
    unsigned last_uri_length;
} tve_builder;

static tve_builder *tve_builder_of(void *context) { return ((xmlParserCtxtPtr)context)->_private; }

static tve_xml_node *tve_new_child(tve_builder *builder, int type) {
    tve_xml_node *node = tve_arena_alloc(builder->document, sizeof(tve_xml_node));
    if (node == NULL) {
        builder->failed = 1;
        return NULL;
    }
    memset(node, 0, sizeof(*node));
    node->type = type;
    tve_xml_node *parent = builder->current;
    node->parent = parent;
    if (parent != NULL) {
        node->prev = parent->last;
        if (parent->last != NULL) parent->last->next = node; else parent->first = node;
        parent->last = node;
    }
    return node;
}

// libxml2's C14N fails on a relative or unparsable namespace URI declared anywhere in the document it walks.
static void tve_check_namespace(tve_builder *builder, const xmlChar *uri) {
    if (uri == NULL || *uri == 0 || builder->document->bad_namespace) return;
    for (unsigned i = 0; i < builder->checked_count; i++) {
        if (builder->checked[i] == uri) return;
    }
    xmlURIPtr parsed = xmlParseURI((const char *)uri);
    if (parsed == NULL || parsed->scheme == NULL) builder->document->bad_namespace = 1;
    if (parsed != NULL) xmlFreeURI(parsed);
    builder->checked[builder->checked_count % 8] = uri;
    if (builder->checked_count < 8) builder->checked_count++;
}

static void tve_start_element(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri,
                              int namespaceCount, const xmlChar **namespaces, int attributeCount, int defaulted,
                              const xmlChar **attributes) {
    (void)defaulted;
    tve_builder *builder = tve_builder_of(context);
    if (builder->failed) return;
    if (builder->current == NULL && builder->document->root != NULL) {
        builder->failed = 1;  // libxml2 reports content after the root before this; never a second root
        return;
    }
    tve_xml_node *node = tve_new_child(builder, TVE_XML_ELEMENT);
    if (node == NULL) return;
    node->local = (const char *)local;
    node->prefix = (const char *)prefix;
    node->uri = (const char *)uri;
    node->local_length = (unsigned)strlen((const char *)local);
    node->prefix_length = prefix != NULL ? (unsigned)strlen((const char *)prefix) : 0;
    if (uri != NULL && uri != builder->last_uri) {
        builder->last_uri = uri;
        builder->last_uri_length = (unsigned)strlen((const char *)uri);
    }
    node->uri_length = uri != NULL ? builder->last_uri_length : 0;
    if (namespaceCount > 0) {
        node->namespaces = tve_arena_alloc(builder->document, (size_t)namespaceCount * sizeof(tve_xml_namespace));
        if (node->namespaces == NULL) {
            builder->failed = 1;
            return;
        }
        for (int i = 0; i < namespaceCount; i++) {
            node->namespaces[i].prefix = (const char *)namespaces[2 * i];
            node->namespaces[i].uri = namespaces[2 * i + 1] != NULL ? (const char *)namespaces[2 * i + 1] : "";
            tve_check_namespace(builder, namespaces[2 * i + 1]);
        }
        node->namespace_count = (unsigned)namespaceCount;
    }
    if (attributeCount > 0) {
        node->attributes = tve_arena_alloc(builder->document, (size_t)attributeCount * sizeof(tve_xml_attribute));
        if (node->attributes == NULL) {
            builder->failed = 1;
            return;
        }
        for (int i = 0; i < attributeCount; i++) {
            const xmlChar **fields = attributes + 5 * i;  // local, prefix, URI, value, end of value
            tve_xml_attribute *attribute = node->attributes + i;
            attribute->local = (const char *)fields[0];
            attribute->prefix = (const char *)fields[1];
            attribute->local_length = (unsigned)strlen((const char *)fields[0]);
            attribute->prefix_length = fields[1] != NULL ? (unsigned)strlen((const char *)fields[1]) : 0;
            attribute->uri = (const char *)fields[2];
            size_t length = fields[3] != NULL && fields[4] >= fields[3] ? (size_t)(fields[4] - fields[3]) : 0;
            char *value = tve_arena_copy(builder->document, fields[3], length);
            if (value == NULL) {
                builder->failed = 1;
                return;
            }
            // Without NOENT libxml2 hands every '&' of a value over as "&#38;" (its tree decodes them afterwards;
            // namespace URIs keep them). Every '&' here starts one, so one pass decodes them exactly.
            size_t kept = 0;
            for (size_t at = 0; at < length; at++, kept++) {
                value[kept] = value[at];
                if (value[at] == '&' && length - at >= 5 && memcmp(value + at, "&#38;", 5) == 0) at += 4;
            }
            value[kept] = 0;
            attribute->value = value;
            attribute->value_length = kept;
        }
        node->attribute_count = (unsigned)attributeCount;
    }
    if (builder->current == NULL) builder->document->root = node;
    builder->current = node;
}

static void tve_end_element(void *context, const xmlChar *local, const xmlChar *prefix, const xmlChar *uri) {
    (void)local, (void)prefix, (void)uri;
    tve_builder *builder = tve_builder_of(context);
    if (builder->failed || builder->current == NULL) return;
    builder->current = builder->current->parent;
}

// Text and CDATA: appended to the last child when it has the same type (text arrives in pieces around references),
// in place when its bytes end the arena.
static void tve_add_text(tve_builder *builder, int type, const xmlChar *bytes, int count) {
    if (builder->failed || builder->current == NULL || count < 0) return;
    tve_xml_document *document = builder->document;
    tve_xml_node *last = builder->current->last;
    size_t length = (size_t)count;
    if (last != NULL && last->type == type) {
        tve_chunk *chunk = document->chunks;
        uintptr_t start = (uintptr_t)chunk->data, text = (uintptr_t)last->text;
        size_t used = text >= start && text - start < chunk->used ? (size_t)(text - start) + last->text_length + 1 : 0;
        char *end = (char *)last->text + last->text_length + 1;
        if (used > 0 && ((used + 7) & ~(size_t)7) == chunk->used && chunk->size - used >= length) {
            memcpy(end - 1, bytes, length);
            end[length - 1] = 0;
            last->text_length += length;
            chunk->used = (used + length + 7) & ~(size_t)7;
            return;
        }
        char *joined = tve_arena_alloc(document, last->text_length + length + 1);
        if (joined == NULL) {
            builder->failed = 1;
            return;
        }
        memcpy(joined, last->text, last->text_length);
        memcpy(joined + last->text_length, bytes, length);
        joined[last->text_length + length] = 0;
        last->text = joined;
        last->text_length += length;
        return;
    }
    tve_xml_node *node = tve_new_child(builder, type);
    if (node == NULL) return;
    node->text = tve_arena_copy(document, bytes, length);
    node->text_length = length;
    if (node->text == NULL) builder->failed = 1;
}

static void tve_characters(void *context, const xmlChar *bytes, int count) {
    tve_add_text(tve_builder_of(context), TVE_XML_TEXT, bytes, count);
}

static void tve_cdata(void *context, const xmlChar *bytes, int count) {
    tve_add_text(tve_builder_of(context), TVE_XML_CDATA, bytes, count);
}

static void tve_comment(void *context, const xmlChar *text) {
    tve_builder *builder = tve_builder_of(context);
    if (builder->failed || builder->current == NULL) return;  // outside the root: not part of any subtree
    tve_xml_node *node = tve_new_child(builder, TVE_XML_COMMENT);
    if (node == NULL) return;
    size_t length = text == NULL ? 0 : strlen((const char *)text);
    node->text = tve_arena_copy(builder->document, text, length);
    node->text_length = length;
    if (node->text == NULL) builder->failed = 1;
}

static void tve_processing_instruction(void *context, const xmlChar *target, const xmlChar *data) {
    tve_builder *builder = tve_builder_of(context);
    if (builder->failed || builder->current == NULL) return;
    tve_xml_node *node = tve_new_child(builder, TVE_XML_PI);
    if (node == NULL) return;
    size_t targetLength = target == NULL ? 0 : strlen((const char *)target);
    size_t length = data == NULL ? 0 : strlen((const char *)data);
    node->local = tve_arena_copy(builder->document, target, targetLength);
    node->text = tve_arena_copy(builder->document, data, length);
    node->text_length = length;
    if (node->local == NULL || node->text == NULL) builder->failed = 1;
}

static void tve_subset(void *context, const xmlChar *name, const xmlChar *externalID, const xmlChar *systemID) {
    (void)name, (void)externalID, (void)systemID, tve_builder_of(context)->declaration = 1;
}

static void tve_entity_declaration(void *context, const xmlChar *name, int type, const xmlChar *publicID,
                                   const xmlChar *systemID, xmlChar *content) {
    (void)name, (void)type, (void)publicID, (void)systemID, (void)content, tve_builder_of(context)->declaration = 1;
}

static void tve_error(void *context, xmlErrorPtr error) {
    tve_builder *builder = tve_builder_of(context);
    if (builder->has_error || error == NULL || error->level < XML_ERR_ERROR) return;
    builder->has_error = 1;
    if (builder->error == NULL || builder->error_capacity == 0) return;
    const char *message = error->message != NULL ? error->message : "unknown error";
    int length = (int)strnlen(message, 200);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == ' ')) length--;
    snprintf(builder->error, builder->error_capacity, "line %d: %.*s", error->line, length, message);
}

static void tve_set_error(char *error, size_t capacity, const char *message) {
    if (error != NULL && capacity > 0) snprintf(error, capacity, "%s", message);
}

int tve_xml_parse(const unsigned char *bytes, size_t length, tve_xml_document **result, char *error,
                  size_t error_capacity) {
    if (error != NULL && error_capacity > 0) error[0] = 0;
    if (bytes == NULL || result == NULL || length == 0 || length > INT32_MAX) {
        tve_set_error(error, error_capacity, "empty or oversized input");
        return TVE_XML_MALFORMED;
    }
    tve_xml_document *document = calloc(1, sizeof(tve_xml_document));
    if (document == NULL) return TVE_XML_NO_MEMORY;
    document->input_length = length;
    // The first chunk holds the usual document whole: its nodes take about four bytes per byte of input.
    size_t first = length < ((size_t)1 << 20) ? length * 5 + 16384 : ((size_t)1 << 20) * 5;
    document->chunks = tve_cache_take(first);
    if (document->chunks == NULL) document->chunks = tve_new_chunk(first);
    if (document->chunks == NULL) {
        free(document);
        return TVE_XML_NO_MEMORY;
    }
    xmlParserCtxtPtr context = xmlNewParserCtxt();
    if (context == NULL || context->sax == NULL) {
        if (context != NULL) xmlFreeParserCtxt(context);
        free(document);
        return TVE_XML_NO_MEMORY;
    }
    tve_builder builder = {document, NULL, 0, 0, error, error_capacity, 0, {0}, 0, NULL, 0};
    xmlSAXHandler *sax = context->sax;
    memset(sax, 0, sizeof(xmlSAXHandler));
    sax->initialized = XML_SAX2_MAGIC;
    sax->startElementNs = tve_start_element;
    sax->endElementNs = tve_end_element;
    sax->characters = tve_characters;
    sax->ignorableWhitespace = tve_characters;
    sax->cdataBlock = tve_cdata;
    sax->comment = tve_comment;
    sax->processingInstruction = tve_processing_instruction;
    sax->internalSubset = tve_subset;
    sax->externalSubset = tve_subset;
    sax->entityDecl = tve_entity_declaration;
    sax->serror = tve_error;
    context->_private = &builder;
    // The tree parser's options exactly (NOENT would also change namespace URIs, which keep "&#38;" for '&'); the
    // caller has refused NUL bytes, so libxml2's detection finds UTF-8, and the declared encoding is ignored.
    int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_IGNORE_ENC;
    xmlDocPtr tree = xmlCtxtReadMemory(context, (const char *)bytes, (int)length, NULL, NULL, options);
    if (tree != NULL) xmlFreeDoc(tree);  // never built: no startDocument handler
    int status = TVE_XML_OK;
    if (builder.failed && !builder.has_error && context->wellFormed) {
        status = TVE_XML_NO_MEMORY;
    } else if (builder.declaration) {
        status = TVE_XML_DOCTYPE;
    } else if (!context->wellFormed || builder.failed) {
        status = TVE_XML_MALFORMED;
    } else if (!context->nsWellFormed) {
        status = TVE_XML_NAMESPACE;
    } else if (document->root == NULL || builder.current != NULL) {
        status = TVE_XML_NO_ROOT;
    }
    if (status == TVE_XML_OK) {
        document->dict = context->dict;
        if (xmlDictReference((xmlDictPtr)document->dict) != 0) status = TVE_XML_NO_MEMORY;
    }
    xmlFreeParserCtxt(context);
    if (status != TVE_XML_OK) {
        if (status == TVE_XML_NO_MEMORY) tve_set_error(error, error_capacity, "out of memory"), document->dict = NULL;
        if (status == TVE_XML_DOCTYPE) tve_set_error(error, error_capacity, "a DOCTYPE or entity declaration");
        if (status == TVE_XML_NO_ROOT) tve_set_error(error, error_capacity, "no root element");
        tve_xml_free(document);
        return status;
    }
    *result = document;
    return TVE_XML_OK;
}

