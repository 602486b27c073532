/*
 * adb_stream: the table of open ADB streams and the scheduler that decides
 * which stream sends next.
 *
 * Each stream pairs the host's id with ours and carries one service (shell,
 * sync, a forwarded socket...). ADB allows one WRTE in flight per stream
 * and direction: we send the next WRTE of a stream only after the host's
 * OKAY, and we answer each host WRTE with OKAY once the service consumed
 * it. Streams with data take turns, one WRTE each, while the transport has
 * room, so a bulk transfer cannot starve an interactive shell.
 *
 * delayed_ack (when host and device both announce it in CNXN, as in AOSP
 * adb): each direction of a stream has a byte window instead. The host's
 * OPEN carries its window in arg1 (non-zero exactly when delayed_ack is
 * on; a mismatch refuses the OPEN, as adbd does), our OKAY answering it
 * carries ours (ADB_STREAM_WINDOW) as a 4-byte little-endian payload, and
 * every later OKAY carries the signed number of bytes the receiver freed.
 * A side sends while its window is above zero and subtracts what it sends
 * (the last WRTE may overshoot). A host WRTE that comes when our window is
 * already spent closes the stream: adbd queues it without limit.
 */
#ifndef GADGETD_ADB_STREAM_H
#define GADGETD_ADB_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;
struct adb_stream_mux;
struct adb_stream;

struct adb_service_ops {
	/*
	 * Host data for the service. Return 0 when consumed (the OKAY goes
	 * out now), 1 when the service calls adb_stream_ack() later, or
	 * -errno to close the stream.
	 */
	int (*write)(void *svc, const uint8_t *data, size_t len);
	/*
	 * Put up to max bytes to send into buf. Return the count, 0 when
	 * there is nothing now (call adb_stream_ready() when there is), or
	 * -errno when the stream is finished: it is then closed.
	 */
	ssize_t (*produce)(void *svc, uint8_t *buf, size_t max);
	/* The stream is gone; release svc. */
	void (*free)(void *svc);
	/*
	 * The service copies or finishes whatever write() gets before it
	 * returns, so the host's next WRTE may come at once: OKAY goes out
	 * before write() runs (and a return of 1 is treated as 0). Lets the
	 * host send while a push is written to disk.
	 */
	bool ack_first;
};

/* Sends one message; payload may be NULL when len is 0. */
typedef int (*adb_stream_mux_send_fn)(void *data, uint32_t cmd, uint32_t arg0,
				      uint32_t arg1, const void *payload,
				      size_t len);
/* Whether the transport can take another big message now. */
typedef int (*adb_stream_mux_room_fn)(void *data);
/*
 * Create the service named name for stream s (a C string: the OPEN's name
 * with any trailing NULs stripped, as current hosts send none).
 * Return 0 with *ops and *svc set, or -errno to refuse the OPEN.
 */
typedef int (*adb_stream_mux_open_fn)(void *data, struct adb_stream *s,
				      const char *name,
				      const struct adb_service_ops **ops,
				      void **svc);

/*
 * Zero-copy sending: services produce WRTE payloads straight into buffers
 * the transport lends (get, of size bytes; NULL when out of memory), and
 * send() takes the buffer back whatever it returns; put() returns a
 * buffer unsent. Other messages go through adb_stream_mux_send_fn.
 */
struct adb_stream_mux_bufs {
	uint8_t *(*get)(void *data, size_t size);
	int (*send)(void *data, uint32_t cmd, uint32_t arg0, uint32_t arg1,
		    uint8_t *buf, size_t len);
	void (*put)(void *data, uint8_t *buf);
};

struct adb_stream_mux *
adb_stream_mux_new(struct loop *loop, adb_stream_mux_send_fn send,
		   const struct adb_stream_mux_bufs *bufs,
		   adb_stream_mux_room_fn room, adb_stream_mux_open_fn open,
		   void *data);
void adb_stream_mux_free(struct adb_stream_mux *t);

/* Close every stream without telling the host (new CNXN, USB reset). */
void adb_stream_mux_reset(struct adb_stream_mux *t);
/* The largest WRTE payload the host accepts. Set it with no stream open
 * (after adb_stream_mux_reset(), as a new CNXN does): data already read ahead
 * for a stream was sized for the old limit. */
void adb_stream_mux_set_max_payload(struct adb_stream_mux *t, size_t max);
unsigned adb_stream_mux_count(const struct adb_stream_mux *t);

/*
 * The receive window we grant each stream under delayed_ack. adbd grants
 * 32 MiB; the host honours whatever we grant, and the held data of a slow
 * service is bounded by this plus one payload per stream.
 */
#define ADB_STREAM_WINDOW (2u * 1024 * 1024)

/* Whether delayed_ack is on for this connection (set it with no stream
 * open, like the max payload). */
void adb_stream_mux_set_delayed_ack(struct adb_stream_mux *t, bool on);

/* Messages from the host, already checked by adb_packet. window is the
 * OPEN's arg1. */
void adb_stream_mux_on_open(struct adb_stream_mux *t, uint32_t remote,
			    uint32_t window, const uint8_t *payload,
			    size_t len);
void adb_stream_mux_on_okay(struct adb_stream_mux *t, uint32_t remote,
			    uint32_t local, const uint8_t *payload, size_t len);
void adb_stream_mux_on_write(struct adb_stream_mux *t, uint32_t remote,
			     uint32_t local, const uint8_t *data, size_t len);
/*
 * A WRTE's header, its payload still to come (adb_packet_head_fn). Without
 * delayed_ack, a stream whose service acknowledges first (ack_first) and
 * that can take the WRTE at once is sent its OKAY now, not when the whole
 * payload is in: a host that keeps one WRTE in flight (adb 29) then
 * readies its next one while this payload is still on the bus. The WRTE
 * itself, through adb_stream_mux_on_write, is not acknowledged again.
 */
void adb_stream_mux_on_write_head(struct adb_stream_mux *t, uint32_t remote,
				  uint32_t local);
void adb_stream_mux_on_close(struct adb_stream_mux *t, uint32_t remote,
			     uint32_t local);

/* Send what the streams have while the transport has room. */
void adb_stream_mux_pump(struct adb_stream_mux *t);

/*
 * Open a stream towards the host (adb reverse): OPEN(ours, 0, name). The
 * service starts producing once the host answers OKAY; a CLSE frees it.
 * Returns 0 or -errno (svc is not freed then).
 */
int adb_stream_mux_connect(struct adb_stream_mux *t, const char *name,
			   const struct adb_service_ops *ops, void *svc,
			   struct adb_stream **out);

/* A service that sends len bytes of data once, then closes the stream
 * (replies of reverse:, refusals). */
int adb_stream_oneshot(const void *data, size_t len,
		       const struct adb_service_ops **ops, void **svc);

/* For services. */
struct loop *adb_stream_loop(const struct adb_stream *s);
/* The service has data: produce() will be called when it is its turn. */
void adb_stream_ready(struct adb_stream *s);
/* The host data the service held back (write returned 1) is consumed. */
void adb_stream_ack(struct adb_stream *s);
/* Send CLSE and free the service now. The service must not touch its
 * state after this returns. */
void adb_stream_close(struct adb_stream *s);

#endif
