// C helpers for TVESAML that need real C (callbacks, thread-local state): libxml2's per-thread error handlers.
// Canonicalization is in CTVEC14N. The header includes no libxml2 header, so that Swift modules importing it never
// see libxml2's ICU-dependent declarations.
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

#endif
