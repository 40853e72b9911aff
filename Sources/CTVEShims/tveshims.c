#include "tveshims.h"

#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include <stdlib.h>
#include <string.h>

// ---- errors ----

static __thread int tve_error_count;
static __thread char tve_first_error[256];

#if LIBXML_VERSION >= 21200
static void tve_structured_error(void *context, const xmlError *error) {
#else
static void tve_structured_error(void *context, xmlErrorPtr error) {
#endif
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

static __thread xmlStructuredErrorFunc tve_saved_structured;
static __thread void *tve_saved_structured_context;
static __thread xmlGenericErrorFunc tve_saved_generic;
static __thread void *tve_saved_generic_context;
static __thread int tve_handlers_installed;

void tve_xml_errors_begin(void) {
    tve_error_count = 0;
    tve_first_error[0] = 0;
    if (!tve_handlers_installed) {
        tve_saved_structured = xmlStructuredError;
        tve_saved_structured_context = xmlStructuredErrorContext;
        tve_saved_generic = xmlGenericError;
        tve_saved_generic_context = xmlGenericErrorContext;
        tve_handlers_installed = 1;
    }
    xmlSetStructuredErrorFunc(NULL, tve_structured_error);
    xmlSetGenericErrorFunc(NULL, tve_generic_error);
}

void tve_xml_errors_end(void) {
    if (!tve_handlers_installed) return;
    xmlSetStructuredErrorFunc(tve_saved_structured_context, tve_saved_structured);
    xmlSetGenericErrorFunc(tve_saved_generic_context, tve_saved_generic);
    tve_handlers_installed = 0;
}

int tve_xml_errors_take(char *buffer, size_t size) {
    if (buffer != NULL && size > 0) {
        strncpy(buffer, tve_first_error, size - 1);
        buffer[size - 1] = 0;
    }
    return tve_error_count;
}
