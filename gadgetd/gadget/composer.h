/*
 * composer: the gadget's ConfigFS tree, through libusbgx.
 *
 * One gadget (config gadget_name) with one configuration per
 * configuration of the set (c.1, c.2, ...; see profile.h). Functions are
 * named after the profile's catalogue entries (the ConfigFS instance
 * name), so the live tree can be compared with a profile. A function is
 * created once and linked into each configuration that lists it.
 */
#ifndef GADGETD_COMPOSER_H
#define GADGETD_COMPOSER_H

#include "profile.h"

struct composer;

struct composer_fn {
	char name[PROFILE_NAME_MAX];
	const struct ktype *type;
};

int composer_new(const char *gadget_name, struct composer **out);
void composer_free(struct composer *c);

/* Remove the whole gadget (unbinding it first); absent is fine. */
int composer_destroy(struct composer *c);
/* Create the gadget if needed and set identity, strings, OS descriptors
 * and configuration attributes for the set: its configurations are
 * created or updated, those past its last removed (composer_unlink_all()
 * first). The MS OS descriptors are linked to c.1. */
int composer_identity(struct composer *c, const struct profile *p,
		      unsigned set);
int composer_add_function(struct composer *c, const struct profile_function *f);
int composer_remove_function(struct composer *c, const char *name);
/* A network function's interface name, as the kernel reads it back once
 * the function was bound: 0, -ENOENT (no such function), -EAGAIN (not
 * named yet) or -errno. */
int composer_net_ifname(struct composer *c, const char *name, char *buf,
			size_t size);
/* The N of /dev/ttyGS<N> of serial function name of type (acm, gser):
 * its port_num, which the kernel gives when the function is made. 0 or
 * -errno. */
int composer_serial_port(struct composer *c, const struct ktype *type,
			 const char *name, unsigned *port);
/* The ConfigFS folder of function name of type (whose attributes
 * libusbgx does not all know, such as mass_storage's forced_eject):
 * 0 or -ENAMETOOLONG. */
int composer_function_dir(struct composer *c, const struct ktype *type,
			  const char *name, char *buf, size_t size);
/* Remove every function link from every configuration. */
int composer_unlink_all(struct composer *c);
/* Link a function into configuration config (0-based: c.config+1);
 * the order of the calls is the order of the interfaces. */
int composer_link(struct composer *c, unsigned config, const char *name);

int composer_bind(struct composer *c, const char *udc);
/*
 * Writing "" to UDC blocks in the kernel until each FunctionFS function
 * is unbound: f_fs drains its AIO completion workqueue and takes
 * ffs->mutex. Both are bounded: a completion copies one request's data
 * (the worker's aioguard keeps it from ever tearing down a dead worker's
 * memory, which waited forever), and ep0's pending request is dequeued
 * before the mutex is taken, so no ep0 reader keeps it waiting for the
 * host.
 */
int composer_unbind(struct composer *c);
/* The UDC the gadget is bound to, or NULL. */
const char *composer_bound_udc(struct composer *c);

#endif
