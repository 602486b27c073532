#!/usr/bin/python3
"""Host-side MTP operations mtp-tools lack, through libmtp with ctypes.

  mtp_host.py rename ID NEWNAME      LIBMTP_Set_File_Name
  mtp_host.py send STORAGE LOCAL NAME  send LOCAL as NAME into the root of
                                     storage STORAGE (decimal or 0x..)
  mtp_host.py events N               read up to N events until ObjectAdded

Prints "ok ..." and exits 0 on success; prints "failed ..." and libmtp's
error stack and exits 1 otherwise.
"""
import ctypes
import os
import sys

mtp = ctypes.CDLL("libmtp.so.9")
libc = ctypes.CDLL(None)


class File(ctypes.Structure):
    pass


File._fields_ = [("item_id", ctypes.c_uint32), ("parent_id", ctypes.c_uint32),
                 ("storage_id", ctypes.c_uint32), ("filename", ctypes.c_void_p),
                 ("filesize", ctypes.c_uint64), ("modificationdate", ctypes.c_long),
                 ("filetype", ctypes.c_int), ("next", ctypes.POINTER(File))]

mtp.LIBMTP_Get_First_Device.restype = ctypes.c_void_p
mtp.LIBMTP_Get_Filemetadata.restype = ctypes.POINTER(File)
mtp.LIBMTP_Get_Filemetadata.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
mtp.LIBMTP_Set_File_Name.argtypes = [ctypes.c_void_p, ctypes.POINTER(File), ctypes.c_char_p]
mtp.LIBMTP_new_file_t.restype = ctypes.POINTER(File)
mtp.LIBMTP_Send_File_From_File.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                           ctypes.POINTER(File), ctypes.c_void_p,
                                           ctypes.c_void_p]
mtp.LIBMTP_Dump_Errorstack.argtypes = [ctypes.c_void_p]
mtp.LIBMTP_Release_Device.argtypes = [ctypes.c_void_p]
mtp.LIBMTP_Read_Event.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int),
                                   ctypes.POINTER(ctypes.c_uint32)]
libc.strdup.restype = ctypes.c_void_p
libc.strdup.argtypes = [ctypes.c_char_p]


def rename(dev, args):
    f = mtp.LIBMTP_Get_Filemetadata(dev, int(args[0], 0))
    if not f:
        return False
    return mtp.LIBMTP_Set_File_Name(dev, f, args[1].encode()) == 0


def send(dev, args):
    f = mtp.LIBMTP_new_file_t()
    f.contents.storage_id = int(args[0], 0)
    f.contents.parent_id = 0
    f.contents.filename = libc.strdup(args[2].encode())
    f.contents.filesize = os.path.getsize(args[1])
    f.contents.filetype = 44  # LIBMTP_FILETYPE_UNKNOWN
    return mtp.LIBMTP_Send_File_From_File(dev, args[1].encode(), f, None, None) == 0


def events(dev, args):
    # Blocks in libmtp until an event comes: run this under timeout(1).
    ev, param = ctypes.c_int(0), ctypes.c_uint32(0)
    for _ in range(int(args[0])):
        if mtp.LIBMTP_Read_Event(dev, ctypes.byref(ev), ctypes.byref(param)) != 0:
            return False
        print("event %d param %d" % (ev.value, param.value))
        sys.stdout.flush()
        if ev.value == 3:  # LIBMTP_EVENT_OBJECT_ADDED
            return True
    return False


def main():
    cmds = {"rename": (rename, 2), "send": (send, 3), "events": (events, 1)}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds or len(sys.argv) - 2 != cmds[sys.argv[1]][1]:
        print(__doc__)
        return 2
    mtp.LIBMTP_Init()
    dev = mtp.LIBMTP_Get_First_Device()
    if not dev:
        print("failed: no MTP device")
        return 1
    ok = cmds[sys.argv[1]][0](dev, sys.argv[2:])
    if not ok:
        mtp.LIBMTP_Dump_Errorstack(dev)
    mtp.LIBMTP_Release_Device(dev)
    print("%s %s %s" % ("ok" if ok else "failed", sys.argv[1], " ".join(sys.argv[2:])))
    sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
