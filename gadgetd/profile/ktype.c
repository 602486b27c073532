/*
 * ktype: the table of kernel function types. To add one, add its entry
 * to ktype_table[] (attributes, and apply() when it has any) and its
 * paragraph to man/gadgetd.conf.5, which test_ktype holds to the table.
 */
#include "ktype.h"
#include "netcfg.h"
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/ether.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <usbg/function/hid.h>
#include <usbg/function/midi.h>
#include <usbg/function/ms.h>
#include <usbg/function/net.h>
#include <usbg/function/uac2.h>
#include <unistd.h>
#include <usbg/usbg.h>

static int ktype_int(const struct profile_function *f, const char *key)
{
	const char *v = ktype_attr(f, key);

	return v ? atoi(v) : 0;
}

static bool ktype_bool(const struct profile_function *f, const char *key)
{
	return optdesc_bool(ktype_attr(f, key)) == 1;
}

static const struct optdesc ktype_net_attrs[] = {
	{ .name = "dev_addr", .type = OPTDESC_MAC,
	  .help = "the gadget's Ethernet address (default: random)" },
	{ .name = "host_addr", .type = OPTDESC_MAC,
	  .help = "the host's Ethernet address (default: random)" },
	{ .name = "qmult", .type = OPTDESC_INT, .min = 1, .max = 255,
	  .help = "queue length multiplier at high and super speed" },
	/* The board's side of the link (netcfg.h): checked across keys by
	 * netcfg_check(), applied by usblink.c once the gadget is bound. */
	{ .name = "ifname", .type = OPTDESC_STRING, .max = 15,
	  .help = "the interface's name pattern, such as usb%d" },
	{ .name = "address", .type = OPTDESC_STRING, .max = 18,
	  .help = "the board's IPv4 address and prefix, such as 10.12.0.1/24" },
	{ .name = "dhcp", .type = OPTDESC_BOOL, .def = "false",
	  .help = "serve the host one address over DHCP (dnsmasq)" },
	{ .name = "mdns_name", .type = OPTDESC_STRING, .max = 63,
	  .help = "the board's name, announced as NAME.local over mDNS" },
	{ .name = "dhcp_router", .type = OPTDESC_BOOL, .def = "false",
	  .help = "hand out the board as the host's gateway" },
	{ .name = "dhcp_dns", .type = OPTDESC_STRING, .max = 15,
	  .help = "hand out this DNS server" },
	{ .name = "uplink", .type = OPTDESC_STRING, .max = 15,
	  .help = "share this interface's connection (or \"any\") with the host: NAT, the board as router and DNS" },
	{ 0 }
};

static int ktype_net_apply(usbg_function *uf, const struct profile_function *f)
{
	usbg_f_net *nf = usbg_to_net_function(uf);
	const char *v;
	struct ether_addr *ea;
	int r = USBG_SUCCESS;

	if ((v = ktype_attr(f, "dev_addr")) && (ea = ether_aton(v)))
		r = usbg_f_net_set_dev_addr(nf, ea);
	if (r == USBG_SUCCESS && (v = ktype_attr(f, "host_addr")) &&
	    (ea = ether_aton(v)))
		r = usbg_f_net_set_host_addr(nf, ea);
	if (r == USBG_SUCCESS && ktype_attr(f, "qmult"))
		r = usbg_f_net_set_qmult(nf, ktype_int(f, "qmult"));
	return r;
}

/*
 * f_rndis leaves its MS OS compat ID empty, and Windows then finds no
 * in-box driver for the 02/02/ff interface. RNDIS 5162001 is the ID
 * Windows' own RNDIS 6.0 driver (and AOSP's init scripts) use. The kernel
 * only sends it when the gadget's os_desc is in use.
 */
static int ktype_rndis_apply(usbg_function *uf, const struct profile_function *f)
{
	struct usbg_function_os_desc os = {
		.compatible_id = "RNDIS",
		.sub_compatible_id = "5162001",
	};
	int r = ktype_net_apply(uf, f);

	if (r == USBG_SUCCESS)
		r = usbg_set_interf_os_desc(uf, "rndis", &os);
	return r;
}

/*
 * Windows 10 (1903) and 11 ship an NCM driver (UsbNcm.sys) but match it
 * only through the MS OS extended compat ID WINNCM, not through the
 * 02/0d class code. f_ncm offers interface.ncm for it since Linux 5.x;
 * like RNDIS above, it is sent only with the gadget's os_desc in use, and
 * only for the configuration linked to it (c.1).
 */
static int ktype_ncm_apply(usbg_function *uf, const struct profile_function *f)
{
	struct usbg_function_os_desc os = {
		.compatible_id = "WINNCM",
		.sub_compatible_id = "",
	};
	int r = ktype_net_apply(uf, f);

	if (r == USBG_SUCCESS)
		r = usbg_set_interf_os_desc(uf, "ncm", &os);
	return r;
}

/* LUNs 1 .. KTYPE_MS_LUNS-1 are lunN_*; LUN 0 keeps the plain names. */
#define KTYPE_MS_LUNS 8
/* SCSI INQUIRY: vendor (8), product (16) and revision (4). */
#define KTYPE_MS_INQUIRY_MAX 28

static const struct optdesc ktype_ms_attrs[] = {
	{ .name = "file", .type = OPTDESC_PATH,
	  .help = "LUN 0's backing file or block device (none: no medium)" },
	{ .name = "ro", .type = OPTDESC_BOOL, .def = "false",
	  .help = "LUN 0 is read-only" },
	{ .name = "removable", .type = OPTDESC_BOOL, .def = "false",
	  .help = "LUN 0's medium is removable (gadgetctl storage)" },
	{ .name = "cdrom", .type = OPTDESC_BOOL, .def = "false",
	  .help = "LUN 0 is a CD-ROM" },
	{ .name = "nofua", .type = OPTDESC_BOOL, .def = "false",
	  .help = "LUN 0 ignores the FUA (force unit access) bit of writes" },
	{ .name = "lunN_file", .type = OPTDESC_PATH, .count = KTYPE_MS_LUNS,
	  .help = "LUN N's (1..7) backing file; the highest N named sets the LUNs" },
	{ .name = "lunN_ro", .type = OPTDESC_BOOL, .count = KTYPE_MS_LUNS, .def = "false",
	  .help = "LUN N is read-only" },
	{ .name = "lunN_removable", .type = OPTDESC_BOOL, .count = KTYPE_MS_LUNS,
	  .def = "false", .help = "LUN N's medium is removable" },
	{ .name = "lunN_cdrom", .type = OPTDESC_BOOL, .count = KTYPE_MS_LUNS,
	  .def = "false", .help = "LUN N is a CD-ROM" },
	{ .name = "lunN_nofua", .type = OPTDESC_BOOL, .count = KTYPE_MS_LUNS,
	  .def = "false", .help = "LUN N ignores the FUA bit" },
	{ .name = "stall", .type = OPTDESC_BOOL, .def = "true",
	  .help = "halt bulk endpoints to end a short transfer (false for picky BIOSes)" },
	{ .name = "inquiry_string", .type = OPTDESC_STRING, .max = KTYPE_MS_INQUIRY_MAX,
	  .help = "every LUN's SCSI INQUIRY vendor, product and revision" },
	{ .name = "media_dir", .type = OPTDESC_PATH,
	  .help = "the folder gadgetctl storage insert takes images from" },
	{ .name = "group_media", .type = OPTDESC_BOOL, .def = "false",
	  .help = "group may insert and eject (images beneath media_dir only)" },
	{ 0 }
};

const char *ktype_ms_attr(const struct profile_function *f, int lun,
				 const char *key)
{
	char name[32];

	if (lun == 0)
		return ktype_attr(f, key);
	snprintf(name, sizeof(name), "lun%d_%s", lun, key);
	return ktype_attr(f, name);
}

/* 1 + the highest N of the lunN_ keys. */
static int ktype_ms_luns(const struct profile_function *f)
{
	unsigned i;
	int n = 1;

	for (i = 0; i < f->n_options; i++) {
		const char *k = f->options[i].key;

		if (!strncmp(k, "lun", 3) && k[3] >= '1' && k[3] <= '9' && k[4] == '_' &&
		    k[3] - '0' + 1 > n)
			n = k[3] - '0' + 1;
	}
	return n;
}

static int ktype_ms_check(const struct profile_function *f, char *why, size_t size)
{
	unsigned i;
	char key[16];
	int lun;

	for (i = 0; i < f->n_options; i++)
		if (!strncmp(f->options[i].key, "lun0_", 5)) {
			snprintf(why, size, "%s: LUN 0 is set by file, ro, removable, cdrom "
				 "and nofua", f->options[i].key);
			return -EINVAL;
		}
	for (lun = 0; lun < ktype_ms_luns(f); lun++)
		if (!ktype_ms_attr(f, lun, "file") &&
		    optdesc_bool(ktype_ms_attr(f, lun, "removable")) != 1) {
			snprintf(key, sizeof(key), lun ? "lun%d_file" : "file", lun);
			snprintf(why, size, "%s: LUN %d has no file and is not removable "
				 "(a fixed disk needs its medium)", key, lun);
			return -EINVAL;
		}
	if (ktype_bool(f, "group_media") && !ktype_attr(f, "media_dir")) {
		snprintf(why, size, "group_media: group may insert images only from a "
			 "media_dir, and none is set");
		return -EINVAL;
	}
	return 0;
}

static int ktype_ms_apply(usbg_function *uf, const struct profile_function *f)
{
	struct usbg_f_ms_lun_attrs lun[KTYPE_MS_LUNS];
	/* libusbgx walks the LUN array up to its NULL entry. */
	struct usbg_f_ms_lun_attrs *luns[KTYPE_MS_LUNS + 1] = { NULL };
	struct usbg_f_ms_attrs attrs = { .stall = ktype_bool(f, "stall"),
					 .nluns = ktype_ms_luns(f), .luns = luns };
	int i;

	for (i = 0; i < attrs.nluns; i++) {
		const char *file = ktype_ms_attr(f, i, "file");

		lun[i] = (struct usbg_f_ms_lun_attrs){
			.id = i,
			.cdrom = optdesc_bool(ktype_ms_attr(f, i, "cdrom")) == 1,
			.ro = optdesc_bool(ktype_ms_attr(f, i, "ro")) == 1,
			.nofua = optdesc_bool(ktype_ms_attr(f, i, "nofua")) == 1,
			.removable = optdesc_bool(ktype_ms_attr(f, i, "removable")) == 1,
			.file = file ? file : "",
#ifdef HAVE_USBG_MS_INQUIRY_STRING
			/* libusbgx 0.3 writes it and refuses NULL; "" keeps
			 * the kernel's own until ktype_ms_apply_dir writes
			 * the profile's. */
			.inquiry_string = "",
#endif
		};
		luns[i] = &lun[i];
	}
	return usbg_f_ms_set_attrs(usbg_to_ms_function(uf), &attrs);
}

/* inquiry_string, which libusbgx does not know, for every LUN. */
static int ktype_ms_apply_dir(int dirfd, const struct profile_function *f)
{
	const char *v = ktype_attr(f, "inquiry_string");
	char path[32];
	int i, fd, r = 0;

	for (i = 0; v && r == 0 && i < ktype_ms_luns(f); i++) {
		snprintf(path, sizeof(path), "lun.%d/inquiry_string", i);
		fd = openat(dirfd, path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0 || write(fd, v, strlen(v)) != (ssize_t)strlen(v))
			r = -errno;
		if (fd >= 0)
			close(fd);
	}
	return r;
}

/* A report descriptor is at most 512 bytes here (HEX max). */
#define KTYPE_HID_DESC_MAX 512

static const struct optdesc ktype_hid_attrs[] = {
	{ .name = "protocol", .type = OPTDESC_INT, .min = 0, .max = 255, .def = "0",
	  .help = "bInterfaceProtocol (1 keyboard, 2 mouse)" },
	{ .name = "subclass", .type = OPTDESC_INT, .min = 0, .max = 255, .def = "0",
	  .help = "bInterfaceSubClass (1 boot interface)" },
	/* An interrupt packet: at most 1024 bytes. */
	{ .name = "report_length", .type = OPTDESC_INT, .min = 1, .max = 1024, .def = "8",
	  .help = "bytes per report" },
	{ .name = "report_desc", .type = OPTDESC_HEX, .max = KTYPE_HID_DESC_MAX,
	  .help = "the report descriptor, in hex" },
	{ 0 }
};

static int ktype_hid_apply(usbg_function *uf, const struct profile_function *f)
{
	unsigned char desc[KTYPE_HID_DESC_MAX];
	const char *v = ktype_attr(f, "report_desc");
	int n = v ? optdesc_hex(v, desc, sizeof(desc)) : 0;
	struct usbg_f_hid_attrs attrs = {
		.protocol = ktype_int(f, "protocol"),
		.subclass = ktype_int(f, "subclass"),
		.report_length = ktype_int(f, "report_length"),
		.report_desc = { .desc = (char *)desc, .len = n },
	};

	if (n < 0)
		return USBG_ERROR_INVALID_PARAM;
	return usbg_f_hid_set_attrs(usbg_to_hid_function(uf), &attrs);
}

/* f_midi takes at most 16 ports each way (MAX_PORTS). */
static const struct optdesc ktype_midi_attrs[] = {
	{ .name = "index", .type = OPTDESC_INT, .min = -1, .max = 31, .def = "-1",
	  .help = "the ALSA card index (-1: the first free one)" },
	{ .name = "id", .type = OPTDESC_STRING, .max = 15,
	  .help = "the ALSA card id" },
	{ .name = "in_ports", .type = OPTDESC_INT, .min = 0, .max = 16, .def = "1",
	  .help = "the host's MIDI inputs (jacks on the IN endpoint)" },
	{ .name = "out_ports", .type = OPTDESC_INT, .min = 0, .max = 16, .def = "1",
	  .help = "the host's MIDI outputs (jacks on the OUT endpoint)" },
	{ .name = "buflen", .type = OPTDESC_INT, .min = 1, .max = 65535, .def = "512",
	  .help = "bytes per USB request" },
	{ .name = "qlen", .type = OPTDESC_INT, .min = 1, .max = 1024, .def = "32",
	  .help = "USB requests queued" },
	{ 0 }
};

static int ktype_midi_check(const struct profile_function *f, char *why, size_t size)
{
	if (ktype_int(f, "in_ports") + ktype_int(f, "out_ports") > 0)
		return 0;
	snprintf(why, size, "in_ports: in_ports and out_ports are both 0 (a MIDI function needs a port)");
	return -EINVAL;
}

static int ktype_midi_apply(usbg_function *uf, const struct profile_function *f)
{
	usbg_f_midi *mf = usbg_to_midi_function(uf);
	const char *id = ktype_attr(f, "id");
	int r = usbg_f_midi_set_index(mf, ktype_int(f, "index"));

	if (r == USBG_SUCCESS && id)
		r = usbg_f_midi_set_id(mf, id);
	if (r == USBG_SUCCESS)
		r = usbg_f_midi_set_in_ports(mf, ktype_int(f, "in_ports"));
	if (r == USBG_SUCCESS)
		r = usbg_f_midi_set_out_ports(mf, ktype_int(f, "out_ports"));
	if (r == USBG_SUCCESS)
		r = usbg_f_midi_set_buflen(mf, ktype_int(f, "buflen"));
	if (r == USBG_SUCCESS)
		r = usbg_f_midi_set_qlen(mf, ktype_int(f, "qlen"));
	return r;
}

/* c_ is what the board captures (the host plays), p_ what it plays. */
static const struct optdesc ktype_uac2_attrs[] = {
	{ .name = "c_chmask", .type = OPTDESC_INT, .min = 0, .max = 0xffff, .def = "3",
	  .help = "capture channel mask (0: no capture)" },
	{ .name = "c_srate", .type = OPTDESC_INT, .min = 8000, .max = 192000, .def = "48000",
	  .help = "capture sample rate (Hz)" },
	{ .name = "c_ssize", .type = OPTDESC_INT, .min = 1, .max = 4, .def = "2",
	  .help = "capture sample size (bytes)" },
	{ .name = "p_chmask", .type = OPTDESC_INT, .min = 0, .max = 0xffff, .def = "3",
	  .help = "playback channel mask (0: no playback)" },
	{ .name = "p_srate", .type = OPTDESC_INT, .min = 8000, .max = 192000, .def = "48000",
	  .help = "playback sample rate (Hz)" },
	{ .name = "p_ssize", .type = OPTDESC_INT, .min = 1, .max = 4, .def = "2",
	  .help = "playback sample size (bytes)" },
	{ 0 }
};

static int ktype_uac2_check(const struct profile_function *f, char *why, size_t size)
{
	if (ktype_int(f, "c_chmask") || ktype_int(f, "p_chmask"))
		return 0;
	snprintf(why, size, "c_chmask: c_chmask and p_chmask are both 0 (no audio either way)");
	return -EINVAL;
}

static int ktype_uac2_apply(usbg_function *uf, const struct profile_function *f)
{
	struct usbg_f_uac2_attrs a = {
		.c_chmask = ktype_int(f, "c_chmask"),
		.c_srate = ktype_int(f, "c_srate"),
		.c_ssize = ktype_int(f, "c_ssize"),
		.p_chmask = ktype_int(f, "p_chmask"),
		.p_srate = ktype_int(f, "p_srate"),
		.p_ssize = ktype_int(f, "p_ssize"),
	};

	return usbg_f_uac2_set_attrs(usbg_to_uac2_function(uf), &a);
}

/* gadgetd's own, not the kernel's: a login on the board's side of the
 * port while the set is bound (console.h). */
static const char *const ktype_console_choices[] = { "none", "getty", NULL };

static const struct optdesc ktype_serial_attrs[] = {
	{ .name = "console", .type = OPTDESC_ENUM, .choices = ktype_console_choices,
	  .def = "none", .help = "getty: a login on the board's ttyGSN while bound" },
	{ 0 }
};

static const struct ktype ktype_table[] = {
	{ .name = "acm", .usbg_type = USBG_F_ACM, .attrs = ktype_serial_attrs },
	{ .name = "gser", .usbg_type = USBG_F_SERIAL, .attrs = ktype_serial_attrs },
	{ .name = "ecm", .usbg_type = USBG_F_ECM, .attrs = ktype_net_attrs,
	  .check = netcfg_check, .apply = ktype_net_apply },
	{ .name = "ncm", .usbg_type = USBG_F_NCM, .attrs = ktype_net_attrs,
	  .check = netcfg_check, .apply = ktype_ncm_apply },
	{ .name = "rndis", .usbg_type = USBG_F_RNDIS, .attrs = ktype_net_attrs,
	  .check = netcfg_check, .apply = ktype_rndis_apply },
	{ .name = "mass_storage", .usbg_type = USBG_F_MASS_STORAGE,
	  .attrs = ktype_ms_attrs, .check = ktype_ms_check, .apply = ktype_ms_apply,
	  .apply_dir = ktype_ms_apply_dir },
	{ .name = "hid", .usbg_type = USBG_F_HID, .attrs = ktype_hid_attrs,
	  .apply = ktype_hid_apply },
	{ .name = "midi", .usbg_type = USBG_F_MIDI, .attrs = ktype_midi_attrs,
	  .check = ktype_midi_check, .apply = ktype_midi_apply },
	{ .name = "uac2", .usbg_type = USBG_F_UAC2, .attrs = ktype_uac2_attrs,
	  .check = ktype_uac2_check, .apply = ktype_uac2_apply },
	{ .name = "ffs", .usbg_type = USBG_F_FFS, .ffs = true },
};

#define KTYPE_N (sizeof(ktype_table) / sizeof(*ktype_table))

const struct ktype *ktype_find(const char *name)
{
	size_t i;

	for (i = 0; i < KTYPE_N; i++)
		if (!strcmp(ktype_table[i].name, name))
			return &ktype_table[i];
	return NULL;
}

const struct ktype *ktype_ffs(void)
{
	return ktype_find("ffs");
}

const char *ktype_names(void)
{
	static char names[256];
	size_t i, n = 0;

	if (names[0])
		return names;
	for (i = 0; i < KTYPE_N; i++)
		n += snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
			      ktype_table[i].name);
	return names;
}

const char *ktype_attr(const struct profile_function *f, const char *key)
{
	const char *v = profile_option(f, key);

	return v ? v : optdesc_default(f->type->attrs, key);
}
