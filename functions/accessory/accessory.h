/*
 * accessory: Android Open Accessory (AOA 1/2) in user space, as a gadgetd
 * plugin (build/plugins/accessory.so, exporting gadgetd_plugin).
 *
 * An accessory host (car head unit, dock) talks to an Android device in
 * two steps: in the device's normal configuration it sends vendor control
 * requests (GET_PROTOCOL, six SEND_STRINGs, START), after which the device
 * re-enumerates as 18d1:2d00 (accessory) or 18d1:2d01 (accessory + adb)
 * with an FF/FF/00 interface of two bulk endpoints that carries the
 * accessory's byte stream. Device-recipient vendor requests reach a
 * FunctionFS instance only with ALL_CTRL_RECIP, which exactly one instance
 * per gadget may have, so the plugin runs in one of two modes:
 *
 *   mode = "control"  in normal sets ("mtp,adb,aoa"): an interface with no
 *                     endpoints that answers the AOA requests; on START it
 *                     saves the strings and asks gadgetd for the accessory
 *                     set.
 *   mode = "data"     in the accessory sets ("accessory", "accessory,adb",
 *                     identity 18d1:2d00 / 18d1:2d01 in the profile):
 *                     interface FF/FF/00 "Android Accessory Interface" with
 *                     bulk IN (ep index 0) and bulk OUT (ep index 1). It
 *                     answers the AOA requests too (hosts may ask again),
 *                     and bridges the bulk endpoints to a unix socket.
 *
 * The control requests accepted and stalled are listed in
 * accessory_ctrl.h.
 *
 * Options (profile: options: { ... }):
 *   mode                  "control" or "data" (required)
 *   state_dir             where the strings are handed from the control to
 *                         the data instance, file accessory.info
 *                         (default RUNDIR/gadgetd)
 *   accessory_set         the set requested on START (control mode; default
 *                         "accessory,adb" when with_adb is true, else
 *                         "accessory")
 *   with_adb              "true" or "false" (default false)
 *   socket                data mode: the socket path (default
 *                         state_dir/accessory.sock)
 *   socket_group          data mode: a group name given the socket, so
 *                         that its members' applications may connect
 *                         (default: the worker's group)
 *   claim_timeout_ms      data mode: revert when the host shows no sign of
 *                         using the interface this long after the switch
 *                         (default 10000, 0 = never)
 *   disconnect_timeout_ms data mode: revert when the host stays
 *                         disconnected this long (default 3000, 0 = never)
 *
 * Status (gadgetctl status): state, the six strings (manufacturer, model,
 * description, version, uri, serial), hid (registered AOA2 HID devices),
 * audio ("off"/"on"), client ("yes"/"no", data mode).
 * state is, in control mode, "idle" or "switching"; in data mode
 * "waiting" (switched, host not seen yet), "connected", "disconnected"
 * (host gone, disconnect timer running) or "reverting".
 *
 * Man page paragraph (gadgetd.conf(5), accessory plugin):
 *
 *   In data mode the plugin listens on the unix stream socket named by
 *   socket, mode 0660. One application at a time may connect; further
 *   connections are accepted and closed at once. On connection the plugin
 *   first sends a header of text lines key=value, one for each of
 *   manufacturer, model, description, version, uri and serial, in this
 *   order, each ended by a newline, followed by an empty line. Values are
 *   the strings the accessory sent, at most 255 bytes, with control
 *   characters replaced by '?'; they never contain a newline. After the
 *   header the connection carries the accessory's raw byte stream in both
 *   directions: bytes the accessory writes to the bulk OUT endpoint are
 *   written to the socket, bytes the application writes are sent on the
 *   bulk IN endpoint. No framing is added. Data the accessory sends while
 *   no application is connected is held (and the accessory is slowed
 *   down) until one connects. While the host is not connected the
 *   application's writes are not read. Bytes already queued for the
 *   host when it resets the device are lost, as with Android's driver.
 *   When the accessory goes away and gadgetd switches back, the plugin
 *   closes the connection.
 *
 * Hosts are taken to have claimed the interface on their first bulk OUT
 * packet (a zero-length one does), control request, or read of data the
 * board sent; a host that only waits for the board to speak first is
 * reverted after claim_timeout_ms if no application writes.
 */
#ifndef GADGETD_ACCESSORY_H
#define GADGETD_ACCESSORY_H

#define ACCESSORY_EP_IN 0
#define ACCESSORY_EP_OUT 1

#define ACCESSORY_INTERFACE_STRING "Android Accessory Interface"
#define ACCESSORY_SOCKET_NAME "accessory.sock"
/* Delay between START's status stage (or a command's reply) and the
 * switch request, as f_accessory's start_work. */
#define ACCESSORY_START_DELAY_MS 10
/* Largest transfer made from socket data; a multiple of every
 * wMaxPacketSize. */
#define ACCESSORY_IN_CHUNK (64 * 1024)
/* Host data held for the application beyond this is dropped (the reads
 * are stopped long before; this only bounds a misbehaving runtime). */
#define ACCESSORY_OUT_HOLD_MAX (8 * 1024 * 1024)

#endif
