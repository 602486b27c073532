/*
 * mount(2) and umount2(2) that succeed without doing anything, for tests
 * that run supervisor.c unprivileged (linked with
 * -Wl,--wrap=mount,--wrap=umount2).
 */
int __wrap_mount(const char *src, const char *dst, const char *type,
		 unsigned long flags, const void *data);
int __wrap_umount2(const char *dst, int flags);

int __wrap_mount(const char *src, const char *dst, const char *type,
		 unsigned long flags, const void *data)
{
	return 0;
}

int __wrap_umount2(const char *dst, int flags)
{
	return 0;
}
