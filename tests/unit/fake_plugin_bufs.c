/*
 * The zero-copy half of the plugin API for the fake runtimes: buffers come
 * from malloc and go out through the fake's plugin_write(), so zero-copy
 * sends look like copied ones to the tests.
 */
#include <stdlib.h>

#include "plugin.h"

void *plugin_buf_alloc(struct plugin *p, size_t len)
{
	(void)p;
	return malloc(len ? len : 1);
}

int plugin_write_buf(struct plugin *p, unsigned ep, void *buf, size_t len)
{
	int rc = plugin_write(p, ep, buf, len);

	free(buf);
	return rc;
}

void plugin_buf_free(struct plugin *p, void *buf)
{
	(void)p;
	free(buf);
}
