/*
 * adb_sync: the sync: service behind adb push, pull and ls: STAT, STA2,
 * LST2, LIST, LIS2, SEND (creating missing parent directories), RECV and
 * QUIT. Failures reach the host as FAIL messages with strerror text.
 */
#ifndef GADGETD_ADB_SYNC_H
#define GADGETD_ADB_SYNC_H

#include "adb_stream.h"

int adb_sync_open(struct adb_stream *s, const struct adb_service_ops **ops,
		  void **svc);

#endif
