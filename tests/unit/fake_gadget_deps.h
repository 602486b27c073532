#ifndef FAKE_GADGET_DEPS_H
#define FAKE_GADGET_DEPS_H

extern char fake_calls[8192];
extern char fake_fail_at[128];   /* e.g. "link(ecm)" */
extern char fake_not_ready[64];  /* a plugin that never becomes ready */
extern char fake_state_set[256];
extern int fake_state_saves;

void fake_reset(void);
void fake_clear_calls(void);

#endif
