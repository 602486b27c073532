/* functions/mtp/mtp_handles.c alone: the handle table, no disk. Handles
 * by (storage, parent, name), forgetting (a folder's tree too), rekeying,
 * the quarantine and generations that keep a dead handle dead, the
 * changed callback its owner's caches rely on, and the names' memory. */
/* clang-format off: cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
/* clang-format on */

#include "mtp/mtp_handles.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SID 0x10001u

struct fixture {
	struct mtp_handles *t;
	unsigned changed; /* calls of the changed callback */
};

static void count_changed(void *data)
{
	struct fixture *f = data;

	f->changed++;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->t = mtp_handles_new(count_changed, f);
	assert_non_null(f->t);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	mtp_handles_free(f->t);
	free(f);
	return 0;
}

static uint32_t intern(struct fixture *f, uint32_t parent, const char *name)
{
	uint32_t h = 0;

	assert_int_equal(mtp_handles_intern(f->t, SID, parent, name, &h), 0);
	assert_true(h != 0 && h != 0xFFFFFFFFu);
	return h;
}

/* One key, one handle; the table tells nobody of a new one. */
static void test_intern(void **state)
{
	struct fixture *f = *state;
	uint32_t a = intern(f, MTP_HANDLES_ROOT, "a");
	uint32_t d = intern(f, MTP_HANDLES_ROOT, "d");
	uint32_t da = intern(f, d, "a");
	uint32_t other = 0;
	const struct mtp_handles_obj *o;

	assert_int_equal(intern(f, MTP_HANDLES_ROOT, "a"), a);
	assert_true(a != d && a != da && d != da);
	assert_int_equal(
	    mtp_handles_intern(f->t, SID + 1, MTP_HANDLES_ROOT, "a", &other),
	    0);
	assert_true(other != a);
	assert_int_equal(mtp_handles_find(f->t, SID, d, "a"), da);
	assert_int_equal(mtp_handles_find(f->t, SID, d, "b"), 0);
	o = mtp_handles_obj(f->t, da);
	assert_non_null(o);
	assert_string_equal(o->name, "a");
	assert_int_equal(o->storage, SID);
	assert_int_equal(o->parent, d);
	assert_null(mtp_handles_obj(f->t, 0));
	assert_null(mtp_handles_obj(f->t, 0xFFFFFFFFu));
	assert_null(mtp_handles_obj(f->t, da + 100));
	assert_int_equal(f->changed, 0);
}

/* 3000 names: the hash grows and every one is found again. */
static void test_many(void **state)
{
	struct fixture *f = *state;
	uint32_t h[3000];
	char name[16];

	for (unsigned i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		h[i] = intern(f, MTP_HANDLES_ROOT, name);
	}
	for (unsigned i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		assert_int_equal(
		    mtp_handles_find(f->t, SID, MTP_HANDLES_ROOT, name), h[i]);
	}
}

/* A forgotten handle is dead, and each forget is told. */
static void test_forget(void **state)
{
	struct fixture *f = *state;
	uint32_t a = intern(f, MTP_HANDLES_ROOT, "a");
	uint32_t b = intern(f, MTP_HANDLES_ROOT, "b");

	mtp_handles_forget(f->t, a);
	assert_int_equal(f->changed, 1);
	assert_null(mtp_handles_obj(f->t, a));
	assert_int_equal(mtp_handles_find(f->t, SID, MTP_HANDLES_ROOT, "a"), 0);
	assert_non_null(mtp_handles_obj(f->t, b));
	/* A dead handle: nothing to forget, but the caller's news (an
	 * object gone behind its back) is told all the same. */
	mtp_handles_forget(f->t, a);
	assert_int_equal(f->changed, 2);
	/* The name comes back under another handle. */
	assert_true(intern(f, MTP_HANDLES_ROOT, "a") != a);
}

/* A folder goes with everything listed below it, and nothing else. */
static void test_forget_tree(void **state)
{
	struct fixture *f = *state;
	uint32_t d = intern(f, MTP_HANDLES_ROOT, "d");
	uint32_t e = intern(f, d, "e");
	uint32_t x = intern(f, e, "x");
	uint32_t y = intern(f, d, "y");
	uint32_t keep = intern(f, MTP_HANDLES_ROOT, "keep");

	assert_true(mtp_handles_is_ancestor(f->t, d, e));
	assert_true(mtp_handles_is_ancestor(f->t, d, d));
	assert_false(mtp_handles_is_ancestor(f->t, e, d));
	assert_false(mtp_handles_is_ancestor(f->t, keep, e));
	mtp_handles_forget_tree(f->t, d);
	assert_null(mtp_handles_obj(f->t, d));
	assert_null(mtp_handles_obj(f->t, e));
	assert_null(mtp_handles_obj(f->t, x));
	assert_null(mtp_handles_obj(f->t, y));
	assert_non_null(mtp_handles_obj(f->t, keep));
	assert_int_equal(f->changed, 4);
}

/* A rekeyed handle keeps its number under its new key; a stale entry
 * there is forgotten; each is told. */
static void test_rekey(void **state)
{
	struct fixture *f = *state;
	uint32_t d = intern(f, MTP_HANDLES_ROOT, "d");
	uint32_t a = intern(f, MTP_HANDLES_ROOT, "a");
	uint32_t stale = intern(f, d, "b");
	const struct mtp_handles_obj *o;

	assert_int_equal(mtp_handles_rekey(f->t, a, MTP_HANDLES_ROOT, "c"), 0);
	assert_int_equal(f->changed, 1);
	assert_int_equal(mtp_handles_find(f->t, SID, MTP_HANDLES_ROOT, "a"), 0);
	assert_int_equal(mtp_handles_find(f->t, SID, MTP_HANDLES_ROOT, "c"), a);
	/* Moved onto a name the table still knew: that entry dies. */
	assert_int_equal(mtp_handles_rekey(f->t, a, d, "b"), 0);
	assert_int_equal(f->changed, 3);
	assert_null(mtp_handles_obj(f->t, stale));
	assert_int_equal(mtp_handles_find(f->t, SID, d, "b"), a);
	o = mtp_handles_obj(f->t, a);
	assert_non_null(o);
	assert_string_equal(o->name, "b");
	assert_int_equal(o->parent, d);
	assert_true(mtp_handles_is_ancestor(f->t, d, a));
}

/*
 * 4 slots, 2 in quarantine: a freed slot waits while 2 others or fewer
 * wait, so a forgotten handle's slot comes back every 3 cycles under a new
 * generation, and the handle itself only once the 11-bit generation went
 * round (cycle 6143), never before.
 */
static void test_generations(void **state)
{
	struct fixture *f = *state;
	uint32_t stale, h, last = 0, first;
	unsigned back = 0, slot_back = 0;

	mtp_handles_set_max(f->t, 4);
	stale = intern(f, MTP_HANDLES_ROOT, "d");
	mtp_handles_forget(f->t, stale);
	/* Quarantined: the next object takes a new slot. */
	first = intern(f, MTP_HANDLES_ROOT, "d");
	assert_true((first & MTP_HANDLES_MAX) != (stale & MTP_HANDLES_MAX));
	mtp_handles_forget(f->t, first);
	for (unsigned i = 0; i < 6500; i++) {
		h = intern(f, MTP_HANDLES_ROOT, "d");
		assert_true(h != last);
		if (i < 6000) {
			assert_true(h != stale);
			assert_null(mtp_handles_obj(f->t, stale));
		}
		back += h == stale;
		slot_back += (h & MTP_HANDLES_MAX) == (stale & MTP_HANDLES_MAX);
		mtp_handles_forget(f->t, h);
		last = h;
	}
	assert_int_equal(back, 1);
	assert_true(slot_back >= 2000);
}

/* A full table refuses a new object until one is forgotten, and keeps
 * none of its name; then the freed slot is taken at once, quarantine or
 * not, under a new handle. */
static void test_full(void **state)
{
	struct fixture *f = *state;
	uint32_t h[4], more = 0;
	char name[8];

	mtp_handles_set_max(f->t, 4);
	for (unsigned i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		h[i] = intern(f, MTP_HANDLES_ROOT, name);
	}
	/* Refused again and again, "more" costs no name bytes. */
	for (unsigned i = 0; i < 10; i++)
		assert_int_equal(mtp_handles_intern(f->t, SID, MTP_HANDLES_ROOT,
						    "more", &more),
				 -ENOSPC);
	assert_int_equal(mtp_handles_name_bytes(f->t), 4 * 3);
	mtp_handles_forget(f->t, h[2]);
	more = intern(f, MTP_HANDLES_ROOT, "more");
	assert_true(more != h[2]);
	assert_int_equal(more & MTP_HANDLES_MAX, h[2] & MTP_HANDLES_MAX);
	assert_null(mtp_handles_obj(f->t, h[2]));
}

/* A name stays where it is while others are interned: a listing keeps
 * the names of what it interned (mtp_store_list_stat). */
static void test_names_stay(void **state)
{
	struct fixture *f = *state;
	uint32_t a = intern(f, MTP_HANDLES_ROOT, "first");
	const char *name = mtp_handles_obj(f->t, a)->name;
	char more[24];

	for (unsigned i = 0; i < 20000; i++) {
		snprintf(more, sizeof(more), "IMG_%08u.jpg", i);
		intern(f, MTP_HANDLES_ROOT, more);
	}
	assert_string_equal(name, "first");
	assert_ptr_equal(mtp_handles_obj(f->t, a)->name, name);
}

/* Interns n names IMG_%08u.jpg (17 bytes each) into the root. */
static void intern_images(struct fixture *f, uint32_t *h, unsigned n)
{
	char name[24];

	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "IMG_%08u.jpg", i);
		h[i] = intern(f, MTP_HANDLES_ROOT, name);
	}
}

/* What a host deleted stops costing memory: once the dead names outweigh
 * the live ones, the live ones are copied anew, and every object still
 * has its own name. */
static void test_names_compact(void **state)
{
	struct fixture *f = *state;
	static uint32_t h[10000];
	char name[24];
	const struct mtp_handles_obj *o;

	intern_images(f, h, 10000);
	assert_int_equal(mtp_handles_name_bytes(f->t), 10000 * 17);
	for (unsigned i = 0; i < 5000; i++)
		mtp_handles_forget(f->t, h[i]);
	/* As many dead bytes as live ones: kept. */
	assert_int_equal(mtp_handles_name_bytes(f->t), 10000 * 17);
	for (unsigned i = 5000; i < 9000; i++)
		mtp_handles_forget(f->t, h[i]);
	assert_true(mtp_handles_name_bytes(f->t) < 2 * 1000 * 17 + 65536);
	for (unsigned i = 9000; i < 10000; i++) {
		snprintf(name, sizeof(name), "IMG_%08u.jpg", i);
		o = mtp_handles_obj(f->t, h[i]);
		assert_non_null(o);
		assert_string_equal(o->name, name);
		assert_int_equal(
		    mtp_handles_find(f->t, SID, MTP_HANDLES_ROOT, name), h[i]);
	}
}

/* A move keeps the object's own name (mtp_store_move passes it to
 * rekey): it survives the compaction the rekey sets off. */
static void test_names_move_own(void **state)
{
	struct fixture *f = *state;
	static uint32_t h[4000];
	uint32_t d = intern(f, MTP_HANDLES_ROOT, "d");
	const struct mtp_handles_obj *o;

	intern_images(f, h, 4000);
	/* 65 535 dead bytes: one short of a compaction. */
	for (unsigned i = 0; i < 3855; i++)
		mtp_handles_forget(f->t, h[i]);
	assert_int_equal(mtp_handles_name_bytes(f->t), 4000 * 17 + 2);
	o = mtp_handles_obj(f->t, h[3999]);
	assert_int_equal(mtp_handles_rekey(f->t, h[3999], d, o->name), 0);
	assert_int_equal(mtp_handles_name_bytes(f->t), 145 * 17 + 2);
	o = mtp_handles_obj(f->t, h[3999]);
	assert_string_equal(o->name, "IMG_00003999.jpg");
	assert_int_equal(o->parent, d);
	assert_int_equal(mtp_handles_find(f->t, SID, d, "IMG_00003999.jpg"),
			 h[3999]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_intern, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_many, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_forget, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_forget_tree, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rekey, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_generations, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_full, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_names_stay, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_names_compact, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_names_move_own, setup,
					    teardown),
	};

	return cmocka_run_group_tests_name("mtp_handles", tests, NULL, NULL);
}
