/*
 * txn: one transaction on the live gadget, as an object of its own.
 *
 * A switch (or a reload) computes its plan once, unbinds, stops the
 * workers of the functions that go, removes and creates functions once
 * those are reaped, waits for every FunctionFS plugin to be ready (an
 * event from its worker, while the loop goes on), binds (again while the
 * UDC is still registering), and commits, or goes back to the set that
 * was live, or leaves the gadget off. A restart brings a crashed worker
 * back: the gadget unbound, the worker again, the gadget bound again.
 *
 * It knows nothing of the gadget that owns it: it is given what it works
 * on (txn_env: ConfigFS, the supervisor, the network, the live functions)
 * and what is live when it begins, and it tells its owner through
 * txn_ops: the new set is live (commit), the gadget must go off, the
 * result is known, the transaction is over. Its caller's result comes
 * from the loop, after the round in which it ended, never from inside
 * the call that started it.
 */
#ifndef GADGETD_TXN_H
#define GADGETD_TXN_H

#include "plan.h"
#include "profile.h"
#include "supervisor.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct composer;
struct config;
struct loop;
struct netsvc;
struct txn;

/* Binds refused as busy are tried again after 100 ms, doubling each time,
 * up to about 6 s in all (a switch here, and the owner's bind to a UDC
 * that appeared). */
#define TXN_BIND_TRIES 6

/* Ends the message of a switch that left the gadget off. */
#define TXN_OFF_NOTE "; the gadget is off"

/* The last bind's times. */
struct txn_timing {
	time_t when;
	unsigned teardown_ms, ready_ms, bind_ms, total_ms;
};

/* What ConfigFS holds: the owner's, kept up to date by transactions. */
struct txn_live {
	unsigned n;
	struct plan_live fn[PLAN_MAX];
	/* Functions of the set left out of the configuration because their
	 * plugin failed, until the next switch links them again. */
	unsigned n_left_out;
	char left_out[PLAN_MAX][PROFILE_NAME_MAX];
	/* The UDC the gadget was last bound to ("" none yet). */
	char udc[64];
	struct txn_timing timing;
};

/* What transactions work on, lent by the owner for as long as it has
 * transactions. */
struct txn_env {
	struct loop *loop;
	const struct config *cfg;
	struct composer *composer;
	struct supervisor *sup;
	struct netsvc *net;
	struct txn_live *live;
};

/* The transaction's caller's result (gadget_done_fn's shape). */
typedef void (*txn_done_fn)(int r, const char *msg, void *data);

/* How a transaction tells its owner (data: txn_new()'s ops_data). */
struct txn_ops {
	/* The target set is live: p (the transaction's until now, unless
	 * the owner had it already) at set becomes the owner's profile and
	 * set; save: the state file records it. */
	void (*commit)(struct profile *p, int set, bool save, void *data);
	/* Nothing to go back to, or going back failed: the owner takes the
	 * gadget down (txn_down_begin()). True while it waits for workers to
	 * be reaped: it calls txn_down_done() once they are. */
	bool (*off)(void *data);
	/* The result is known (set: the target's name, "" for a restart),
	 * before the caller hears: for status, the UDC's watch. */
	void (*finished)(const char *set, int r, const char *msg, void *data);
	/* The transaction is no longer in progress; its caller hears next. */
	void (*ended)(void *data);
	/* The caller heard and the transaction is freed: what waits may
	 * run. Not called by txn_drop(). */
	void (*idle)(void *data);
};

/* A transaction over env (which must outlive it), with what is live as
 * it begins: cur at cur_set (-1: off), both the owner's. fn (may be NULL)
 * hears the result once. NULL with errno. Start it with txn_switch() or
 * txn_restart(). */
struct txn *txn_new(const struct txn_env *env, const struct txn_ops *ops,
		    void *ops_data, const struct profile *cur, int cur_set,
		    txn_done_fn fn, void *data);
/* Switch to set of p (the transaction's, freed by it unless it becomes
 * the owner's; p may be cur); save: the state file records it once it is
 * live. The result follows through fn. */
void txn_switch(struct txn *t, struct profile *p, int set, bool save);
/* A crashed worker of function again: the gadget unbound, the worker
 * respawned, then bound again (without plugins that failed). */
void txn_restart(struct txn *t, const char *function);
/* gadget_free() during a transaction: stop waiting, answer the caller
 * now (-ECANCELED if it had not finished) and free t. ops->ended and
 * ops->idle are not called. */
void txn_drop(struct txn *t);
/* The caller behind data went away: fn is not called. */
void txn_cancel(struct txn *t, void *data);
/* The down the transaction asked for (ops->off) is over: true when
 * that told the result (ops->ended and ops->idle followed). */
bool txn_down_done(struct txn *t);
/* A switch whose result is not known yet (it waits for plugins with the
 * gadget unbound). */
bool txn_switching(const struct txn *t);
/* The profile a switch whose result is not known yet goes to, else
 * NULL. */
const struct profile *txn_target(const struct txn *t);

/* Bind to the configured UDC (env->live->udc says which): 0 (also when
 * none is there yet), -EAGAIN while the UDC registers, -errno with msg.
 * Only binds: whoever bound then calls netsvc_bound(). */
int txn_bind(const struct txn_env *env, char *msg, size_t size);
/* Off, first: the links and the serial ports' logins go. 0: they are
 * gone, txn_down_begin() follows now; -EINPROGRESS: fn(data) follows
 * once they are (netsvc_wait_down()), which calls txn_down_begin(). */
int txn_down_net(const struct txn_env *env, void (*fn)(void *data), void *data);
/* Then: unbind now and stop every worker; the functions go once the
 * workers are reaped. 0: all down already; -EINPROGRESS: fn(data)
 * follows, which must call txn_down_end(). */
int txn_down_begin(const struct txn_env *env, supervisor_stopped_fn fn,
		   void *data);
void txn_down_end(const struct txn_env *env);
/* Whether function was left out of the configuration (its plugin
 * failed). */
bool txn_left_out(const struct txn_live *live, const char *function);

#endif
