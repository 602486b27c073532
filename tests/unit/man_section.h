/*
 * man_section: what a man page documents in one ".SS" section made of
 * ".TP" paragraphs, for tests that hold a table against its manual
 * (plugin options in test_plugin_list, kernel function types in
 * test_ktype).
 */
#ifndef GADGETD_TEST_MAN_SECTION_H
#define GADGETD_TEST_MAN_SECTION_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Reads section (".SS SECTION") of the man page at path. A paragraph's
 * head is the ".B NAME" or ".BR NAME1 \", \" NAME2 ..." line right after
 * ".TP" (each bold name of .BR is a head); a ".PP" ends the list. Fills
 * out with one "HEAD.\n" line per head, then one "HEAD.WORD\n" line for
 * each bold word (\fBword\fR) of the paragraph's text that is made of
 * a-z, 0-9 and _ (\fIN\fB, an italic N, stands for N: storage\fIN\fB_path
 * is storageN_path), under each of the paragraph's heads. Fails the
 * test when the file cannot be read or out is too small; returns 0, or
 * -1 when the page has no such section.
 */
int man_section_words(const char *path, const char *section, char *out, size_t size);

/* Whether words (from man_section_words) holds the line "HEAD.WORD";
 * word "" asks for the head itself. */
bool man_section_has(const char *words, const char *head, const char *word);

#endif
