/*
 * fake_configfs: ConfigFS and /sys/class/udc in a temporary folder, for
 * tests of code that uses libusbgx (see fake_configfs.c). Link with
 * -Wl,--wrap=usbg_init: the code under test asks for /sys/kernel/config
 * and gets the fake one.
 */
#ifndef TESTS_FAKE_CONFIGFS_H
#define TESTS_FAKE_CONFIGFS_H

/* Make the folders; returns what stands for /sys/kernel/config, or NULL. */
const char *fake_configfs_new(void);
/* TOP/config/usb_gadget, where the gadgets are. */
const char *fake_configfs_gadgets(void);
/* A UDC appears in /sys/class/udc. */
void fake_configfs_add_udc(const char *name);
/* From now on, a new function of TYPE refuses writes to its ATTR (the
 * kernel's EINVAL, here a folder where the file should be). */
void fake_configfs_refuse(const char *type, const char *attr);
/* Remove it all. */
void fake_configfs_free(void);

#endif
