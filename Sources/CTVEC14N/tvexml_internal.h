// Shared by tvexml.c (the parse) and tvexml_c14n.c (the canonicalizers): the document behind tvexml.h's opaque type.
#ifndef TVEKIT_TVEXML_INTERNAL_H
#define TVEKIT_TVEXML_INTERNAL_H

#include "tvexml.h"

#include <stddef.h>

typedef struct tve_chunk {
    struct tve_chunk *next;
    size_t size;
    size_t used;
    unsigned char data[];
} tve_chunk;

struct tve_xml_document {
    tve_chunk *chunks;  // the newest first
    void *dict;         // libxml2's interned names (an xmlDictPtr), referenced for the document's life
    tve_xml_node *root;
    size_t input_length;  // sizes the canonical form's first buffer
    int bad_namespace;  // a relative or unparsable namespace URI is declared somewhere (libxml2's C14N refuses it)
};

#endif
