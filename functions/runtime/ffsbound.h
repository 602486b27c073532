/*
 * ffsbound: whether a FunctionFS instance is in a gadget bound to a UDC.
 *
 * Linux 6.1's f_fs deadlocks in open(ep0) of an instance that was
 * deactivated (no_disconnect=1, its last user died) while its gadget is
 * bound: ffs_ep0_open() holds ffs->mutex, the reset unbinds the gadget and
 * functionfs_unbind() takes the mutex again. A bound gadget also means the
 * instance already had its descriptors, so a worker (or the program of an
 * exec function) refuses to start: gadgetd must unbind the UDC before it
 * restarts one, and bind again after READY.
 */
#ifndef GADGETD_FFSBOUND_H
#define GADGETD_FFSBOUND_H

/* -EBUSY (and why, logged) when the instance mounted on dir is in a bound
 * gadget; 0 otherwise, or when that cannot be told. */
int ffsbound_refuse(const char *dir);

#endif
