/*
 * control: the control socket. Any local user may ask for status and
 * list; switching and plugin commands need root or the configured group
 * (checked with SO_PEERCRED).
 */
#ifndef GADGETD_CONTROL_H
#define GADGETD_CONTROL_H

struct loop;
struct gadget;
struct control;

struct control *control_new(struct loop *l, const char *path,
			    const char *group, struct gadget *g);
void control_free(struct control *c);

#endif
