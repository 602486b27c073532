/*
 * wmsg: encoding and checking of the worker <-> gadgetd datagrams
 * described in worker.h, on the worker's side.
 */
#ifndef GADGETD_WMSG_H
#define GADGETD_WMSG_H

#include "worker.h"

#include <stddef.h>
#include <stdint.h>

/* Most arguments a WORKER_COMMAND may carry. */
#define WMSG_MAX_ARGS 32

/*
 * Check one received datagram of n bytes: a header whose len matches the
 * rest. Returns 0 with *type, *payload and *len set, or -EBADMSG.
 */
int wmsg_parse(uint8_t *buf, size_t n, uint16_t *type, uint8_t **payload,
	       size_t *len);

/*
 * Split a WORKER_COMMAND payload into its id and argv (pointing into p,
 * argv[argc] = NULL). Returns 0, -EBADMSG when the id is missing or the
 * last string is not NUL-terminated, -E2BIG for more than WMSG_MAX_ARGS.
 */
int wmsg_parse_command(uint8_t *p, size_t len, uint32_t *id,
		       char *argv[WMSG_MAX_ARGS + 1], int *argc);

/* A u32 payload (WORKER_PING): exactly 4 bytes, else -EBADMSG. */
int wmsg_parse_u32(const uint8_t *p, size_t len, uint32_t *v);

/*
 * Build a message of type with n strings (each sent with its NUL) into
 * buf. Returns the datagram length or -EMSGSIZE.
 */
int wmsg_build_strings(uint8_t *buf, size_t size, uint16_t type,
		       const char *const *strs, unsigned n);

/* WORKER_REPLY: id, rc, text (cut to fit WORKER_MSG_MAX). */
int wmsg_build_reply(uint8_t *buf, size_t size, uint32_t id, int32_t rc,
		     const char *text);

/* A message with a u32 payload (WORKER_HOST, WORKER_PONG) or none (len 0). */
int wmsg_build_u32(uint8_t *buf, size_t size, uint16_t type, uint32_t v);
int wmsg_build_empty(uint8_t *buf, size_t size, uint16_t type);

#endif
