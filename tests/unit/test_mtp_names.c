/* functions/mtp/mtp_names.c alone: the handle table's names, packed in
 * blocks that never move. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "mtp/mtp_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name costs its bytes and its NUL; dropped ones count as dead. */
static void test_counts(void **state)
{
	struct mtp_names *a = mtp_names_new();
	char *x, *y;

	(void)state;
	assert_non_null(a);
	x = mtp_names_add(a, "IMG_00000001.jpg");
	y = mtp_names_add(a, "");
	assert_non_null(x);
	assert_non_null(y);
	assert_string_equal(x, "IMG_00000001.jpg");
	assert_string_equal(y, "");
	assert_int_equal(mtp_names_live(a), 18);
	mtp_names_drop(a, x);
	assert_int_equal(mtp_names_live(a), 1);
	assert_int_equal(mtp_names_dead(a), 17);
	/* The last one added is taken back: the next add takes its place. */
	mtp_names_drop(a, y);
	assert_int_equal(mtp_names_live(a), 0);
	assert_int_equal(mtp_names_dead(a), 17);
	assert_ptr_equal(mtp_names_add(a, "z"), y);
	mtp_names_free(a);
	mtp_names_free(NULL);
}

/* 100 000 names later the first ones are where they were, and each
 * name is packed right after the one before it in a block. */
static void test_stay(void **state)
{
	struct mtp_names *a = mtp_names_new();
	char *first[16], *prev = NULL, *p;
	char name[24];
	unsigned packed = 0;

	(void)state;
	for (unsigned i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "IMG_%08u.jpg", i);
		p = mtp_names_add(a, name);
		assert_non_null(p);
		if (i < 16)
			first[i] = p;
		packed += prev && p == prev + 17;
		prev = p;
	}
	for (unsigned i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "IMG_%08u.jpg", i);
		assert_string_equal(first[i], name);
	}
	/* Only a new block breaks the run: 4, 8, 16, 32 KiB, then 64 KiB. */
	assert_true(packed >= 100000 - 40);
	mtp_names_free(a);
}

/* A name longer than any block gets one of its own; reserved room
 * takes the adds that follow without a new block. */
static void test_long_and_reserve(void **state)
{
	struct mtp_names *a = mtp_names_new();
	size_t n = 200000;
	char *big = malloc(n + 1), *p, *q;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	p = mtp_names_add(a, big);
	assert_non_null(p);
	assert_int_equal(strlen(p), n);
	assert_true(mtp_names_reserve(a, 3000));
	p = mtp_names_add(a, "a");
	for (unsigned i = 0; i < 1000; i++)
		q = mtp_names_add(a, "bc");
	assert_ptr_equal(q, p + 2 + 3 * 999);
	assert_int_equal(mtp_names_live(a), n + 1 + 2 + 3000);
	free(big);
	mtp_names_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_counts),
	    cmocka_unit_test(test_stay),
	    cmocka_unit_test(test_long_and_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
