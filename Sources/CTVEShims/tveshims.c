#include "tveshims.h"

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/c14n.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlIO.h>

#include <stdlib.h>
#include <string.h>

// ---- errors ----

static __thread int tve_error_count;
static __thread char tve_first_error[256];

static void tve_structured_error(void *context, xmlErrorPtr error) {
    (void)context;
    if (tve_error_count++ == 0 && error != NULL && error->message != NULL) {
        strncpy(tve_first_error, error->message, sizeof tve_first_error - 1);
        tve_first_error[sizeof tve_first_error - 1] = 0;
        size_t n = strlen(tve_first_error);
        while (n > 0 && (tve_first_error[n - 1] == '\n' || tve_first_error[n - 1] == ' ')) tve_first_error[--n] = 0;
    }
}

static void tve_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
    tve_error_count++;
}

void tve_xml_errors_begin(void) {
    tve_error_count = 0;
    tve_first_error[0] = 0;
    xmlSetStructuredErrorFunc(NULL, tve_structured_error);
    xmlSetGenericErrorFunc(NULL, tve_generic_error);
}

int tve_xml_errors_take(char *buffer, size_t size) {
    if (buffer != NULL && size > 0) {
        strncpy(buffer, tve_first_error, size - 1);
        buffer[size - 1] = 0;
    }
    return tve_error_count;
}

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

void tve_free(void *pointer) { free(pointer); }
