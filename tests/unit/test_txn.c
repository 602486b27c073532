/*
 * gadgetd/gadget/txn.c alone, over the fakes of ConfigFS, the workers and the
 * UDC (fake_gadget_deps.c), with this test as its owner (txn_ops): a
 * switch commits, a failing bind rolls back and says so, a restart binds
 * again; the owner hears in order (finished, ended, the caller, idle).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "composer.h"
#include "config.h"
#include "fake_gadget_deps.h"
#include "loop.h"
#include "netsvc.h"
#include "profile.h"
#include "supervisor.h"
#include "txn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The owner: what is live, and what the transaction told it. */
struct fixture {
	char dir[64];
	struct config cfg;
	struct loop *loop;
	struct composer *composer;
	struct supervisor *sup;
	struct netsvc *net;
	struct txn_live live;
	struct txn_env env;
	struct txn *txn;
	struct profile *p;   /* the owner's profile, NULL: none */
	int set;
	char told[512];      /* the calls up, in order */
	struct fake_result res;
};

static void told(struct fixture *f, const char *what)
{
	size_t n = strlen(f->told);

	snprintf(f->told + n, sizeof(f->told) - n, "%s ", what);
}

static void on_commit(struct profile *p, int set, bool save, void *data)
{
	struct fixture *f = data;

	if (f->p != p)
		profile_free(f->p);
	f->p = p;
	f->set = set;
	told(f, save ? "commit(save)" : "commit");
}

static void on_down_stopped(void *data)
{
	struct fixture *f = data;

	txn_down_end(&f->env);
	txn_down_done(f->txn);
}

static bool on_off(void *data)
{
	struct fixture *f = data;

	f->set = -1;
	told(f, "off");
	return txn_down_begin(&f->env, on_down_stopped, f) == -EINPROGRESS;
}

static void on_finished(const char *set, int r, const char *msg, void *data)
{
	char what[128];

	snprintf(what, sizeof(what), "finished(%s,%d)", set, r);
	told(data, what);
}

static void on_ended(void *data)
{
	struct fixture *f = data;

	f->txn = NULL;
	told(f, "ended");
}

static void on_idle(void *data)
{
	struct fixture *f = data;

	/* The caller heard before. */
	assert_true(f->res.done);
	told(f, "idle");
}

static const struct txn_ops ops = {
	.commit = on_commit,
	.off = on_off,
	.finished = on_finished,
	.ended = on_ended,
	.idle = on_idle,
};

static void net_view(struct netsvc_view *v, void *data)
{
	struct fixture *f = data;

	v->profile = f->p;
	v->set = f->set;
	v->live = f->live.fn;
	v->n_live = f->live.n;
	v->switching = f->txn != NULL;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fake_profile_dir(f->dir, sizeof(f->dir), "test_txn");
	fake_config(&f->cfg, f->dir);
	fake_reset();
	f->loop = loop_new();
	assert_int_equal(composer_new("g", &f->composer), 0);
	f->sup = supervisor_new(f->loop, &f->cfg, NULL, NULL, f);
	f->net = netsvc_new(f->loop, &f->cfg, f->composer, f->sup, net_view, f);
	assert_non_null(f->net);
	f->env = (struct txn_env){ .loop = f->loop, .cfg = &f->cfg,
				   .composer = f->composer, .sup = f->sup,
				   .net = f->net, .live = &f->live };
	f->set = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	txn_drop(f->txn);
	netsvc_free(f->net);
	supervisor_free(f->sup);
	profile_free(f->p);
	loop_free(f->loop);
	rmdir(f->dir);
	free(f);
	return 0;
}

static struct profile *parse(void)
{
	struct profile *p;
	char err[1024];

	assert_int_equal(profile_parse("t.conf", fake_gadget_profile, &p, err, sizeof(err)), 0);
	return p;
}

static int set_index(const struct profile *p, const char *name)
{
	char err[256];
	int i = profile_set_find(p, name, err, sizeof(err));

	assert_true(i >= 0);
	return i;
}

/* A switch of the owner's to set of p (a fresh parse when p is NULL):
 * its result. */
static int do_switch(struct fixture *f, struct profile *p, const char *set)
{
	if (!p)
		p = parse();
	f->res = (struct fake_result){ 0 };
	f->told[0] = '\0';
	f->txn = txn_new(&f->env, &ops, f, f->p, f->set, fake_on_done, &f->res);
	assert_non_null(f->txn);
	txn_switch(f->txn, p, set_index(p, set), true);
	/* Never from inside the call that started it. */
	assert_false(f->res.done);
	return fake_wait_done(f->loop, &f->res);
}

static void test_switch_commits(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,ecm"), 0);
	assert_string_equal(f->told, "commit(save) finished(acm,ecm,0) ended idle ");
	assert_non_null(strstr(f->res.msg, "switched to acm,ecm (profile t) in "));
	assert_null(f->txn);
	assert_int_equal(f->set, set_index(f->p, "acm,ecm"));
	assert_int_equal(f->live.n, 2);
	assert_string_equal(f->live.udc, "dummy_udc.0");
	assert_true(fake_is_bound());
	/* Then to another set of the same profile: only what differs. */
	fake_clear_calls();
	assert_int_equal(do_switch(f, f->p, "acm,adb"), 0);
	assert_string_equal(fake_calls, "unbind() unlink_all() remove(ecm) identity(0107) "
			    "add(adb) start(adb) link(acm) link(adb) bind(dummy_udc.0) ");
	assert_int_equal(f->set, set_index(f->p, "acm,adb"));
}

static void test_bind_fails_rolls_back(void **state)
{
	struct fixture *f = *state;
	struct profile *before;

	assert_int_equal(do_switch(f, NULL, "acm,ecm"), 0);
	before = f->p;
	fake_clear_calls();
	fake_bind_busy = 1;
	fake_udc_holder = "other";
	assert_int_equal(do_switch(f, NULL, "ncm"), -EBUSY);
	assert_non_null(strstr(f->res.msg, "cannot bind the gadget to UDC dummy_udc.0: "
			       "gadget \"other\" holds it; rolled back to acm,ecm"));
	/* No commit: the owner keeps what it had. */
	assert_string_equal(f->told, "finished(ncm,-16) ended idle ");
	assert_ptr_equal(f->p, before);
	assert_int_equal(f->set, set_index(f->p, "acm,ecm"));
	assert_non_null(strstr(fake_calls, "identity(0106) add(ncm) link(ncm) bind(dummy_udc.0) "));
	assert_non_null(strstr(fake_calls, "identity(0105) add(acm) add(ecm) link(acm) link(ecm) "
			       "bind(dummy_udc.0) "));
	assert_true(fake_is_bound());
}

static void test_bind_fails_from_off_goes_off(void **state)
{
	struct fixture *f = *state;

	fake_bind_busy = 1;
	assert_int_equal(do_switch(f, NULL, "ncm"), -EBUSY);
	assert_non_null(strstr(f->res.msg, "; the gadget is off"));
	assert_string_equal(f->told, "off finished(ncm,-16) ended idle ");
	assert_int_equal(f->set, -1);
}

static void test_restart_binds_again(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(do_switch(f, NULL, "acm,adb"), 0);
	fake_clear_calls();
	f->res = (struct fake_result){ 0 };
	f->told[0] = '\0';
	f->txn = txn_new(&f->env, &ops, f, f->p, f->set, fake_on_done, &f->res);
	assert_non_null(f->txn);
	txn_restart(f->txn, "adb");
	/* A restart is no switch: a crash meanwhile waits its turn. */
	assert_false(txn_switching(f->txn));
	assert_int_equal(fake_wait_done(f->loop, &f->res), 0);
	assert_string_equal(fake_calls, "unbind() respawn(adb) bind(dummy_udc.0) ");
	/* Nothing to commit, nothing for status. */
	assert_string_equal(f->told, "finished(,0) ended idle ");
	assert_true(fake_is_bound());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switch_commits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_fails_rolls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_fails_from_off_goes_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_restart_binds_again, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
