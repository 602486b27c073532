/*
 * mtp_plugin: the mtp plugin's ops table (plugin.h), kept apart from
 * mtp.c so that the ptp plugin can link mtp.c with its own table.
 */
#include "mtp.h"

extern const struct plugin_meta mtp_meta; /* mtp_meta.c */

static const struct mtp_flavour mtp_plugin_flavour = {
	.name = "mtp",
	.ptp = false,
	.tables = NULL, /* MTP's own operations */
	.interface_string = "MTP",
	.ms_compat_id = "MTP",
};

static int mtp_plugin_prepare(struct plugin *p, uid_t uid, gid_t gid)
{
	return mtp_prepare_as(p, uid, gid, &mtp_plugin_flavour);
}

static int mtp_plugin_init(struct plugin *p, struct plugin_desc *desc,
			   void **priv)
{
	return mtp_init_as(p, desc, priv, &mtp_plugin_flavour);
}

const struct plugin_ops gadgetd_plugin =
    MTP_PLUGIN_OPS("mtp", &mtp_meta, mtp_plugin_prepare, mtp_plugin_init);
